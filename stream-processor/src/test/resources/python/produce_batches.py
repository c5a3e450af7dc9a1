#!/usr/bin/env python3
"""Send batches of readings (tspipe's ``ReadingBatch``) to tspipe's readings topic with confluent-kafka.

    produce_batches.py BOOTSTRAP_SERVERS REGISTRY_URL TOPIC SEED COUNT

Sends COUNT seeded batches of a few devices, within the hour after 2026-11-30T12:00:00Z, with some exact duplicates
and some corrections of earlier readings, and prints one JSON line per reading sent, in send order:
``{"device": ..., "metric": ..., "timestamp": <epoch ms>, "value": ..., "tags": {...}}``. Every line is printed only
once the broker has acknowledged every batch; the exit status is non-zero, with the reason on standard error, when
any batch is not delivered or cannot be serialized (an unreachable registry, say).

What tspipe needs of a producer (docs/ingest.md, docs/schemas-and-serde.md "ReadingBatch"):

- the value in Confluent's wire format, the batch schema registered under ``<topic>-dev.tspipe.schemas.ReadingBatch``
  (``topic_record_subject_name_strategy``), so that batches share the topic with single ``Reading`` records;
- the key: the device id in UTF-8, all readings of a batch of that one device;
- ``partitioner: murmur2_random``, which places a key where the Java client does, so that no batch is re-routed;
- ``enable.idempotence`` and ``acks=all``: a retry neither duplicates nor reorders a device's batches.

The serializer: confluent-kafka's ``AvroSerializer`` needs ``fastavro``, which Debian does not package. Where it is
installed (pip), this script uses it as confluent-kafka documents it; else it writes the same bytes itself with
Debian's ``python3-avro`` (``WireFormatAvroSerializer`` below, registering through confluent-kafka's own
``SchemaRegistryClient``). Either takes a batch as a dict whose timestamps are time-zone-aware datetimes.
"""

import datetime
import io
import json
import random
import struct
import sys

from confluent_kafka import KafkaException, SerializingProducer
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, topic_record_subject_name_strategy
from confluent_kafka.serialization import SerializationError, Serializer, StringSerializer

# schemas/src/main/avro/ReadingBatch.avsc, as it is (docs included: the registry tells schemas apart by their text,
# docs too). PythonBatchProducerIT checks that what this script registers is that file's schema.
READING_BATCH_SCHEMA = json.dumps({
    "type": "record",
    "name": "ReadingBatch",
    "namespace": "dev.tspipe.schemas",
    "doc": "Many readings of one device in one Kafka record, on the readings topic next to single Readings "
           "(docs/schemas-and-serde.md, 'Batches'). Registered under the subject "
           "'<topic>-dev.tspipe.schemas.ReadingBatch' (TopicRecordNameStrategy).",
    "fields": [
        {"name": "deviceId", "type": "string", "doc": "The device every reading of the batch is of; also the Kafka message key."},
        {"name": "tenant", "type": ["null", "string"], "default": None,
         "doc": "Owner of the device when one cluster serves several tenants."},
        {"name": "series", "doc": "The readings, grouped by metric and tags: each metric once, then its points.",
         "type": {"type": "array", "items": {
             "type": "record",
             "name": "BatchSeries",
             "doc": "The points of one metric with one set of tags.",
             "fields": [
                 {"name": "metric", "type": "string", "doc": "What was measured, e.g. temperature."},
                 {"name": "tags", "type": {"type": "map", "values": "string"}, "default": {},
                  "doc": "Free-form labels of every point of this series entry."},
                 {"name": "points", "doc": "The readings of the metric, in any order.",
                  "type": {"type": "array", "items": {
                      "type": "record",
                      "name": "BatchPoint",
                      "doc": "One reading: when and what.",
                      "fields": [
                          {"name": "timestamp", "type": {"type": "long", "logicalType": "timestamp-millis"},
                           "doc": "When it was measured, epoch milliseconds UTC."},
                          {"name": "value", "type": "double", "doc": "The measured value."},
                      ]}}},
             ]}}},
    ],
})

T0_MS = 1796040000000  # 2026-11-30T12:00:00Z
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
# The devices and metrics of the generated batches. PythonBatchProducerIT sends each device one reading first.
DEVICES = ["py-sensor-0", "py-sensor-1", "py-sensor-2", "py-sensor-3"]
UNITS = {"temperature": "C", "humidity": "%", "pressure": "hPa", "voltage": "V", "co2": "ppm"}
SITES = ["roof", "basement"]


class WireFormatAvroSerializer(Serializer):
    """Confluent's wire format with Debian's python3-avro: what confluent-kafka's AvroSerializer writes with fastavro.

    Byte 0 is the magic byte 0, bytes 1-4 the schema id (big-endian), then the Avro binary of the datum. The schema is
    registered on first use under the subject ``subject.name.strategy`` names, as AvroSerializer does with
    ``auto.register.schemas`` (its default).
    """

    def __init__(self, schema_registry_client, schema_str, to_dict=None, conf=None):
        import avro.io
        import avro.schema

        self._registry = schema_registry_client
        self._schema = Schema(schema_str, schema_type="AVRO")
        parsed = avro.schema.parse(schema_str)
        self._record_name = parsed.fullname  # dev.tspipe.schemas.ReadingBatch
        self._writer = avro.io.DatumWriter(parsed)
        self._binary_encoder = avro.io.BinaryEncoder
        self._to_dict = to_dict
        self._subject_name_func = (conf or {}).get("subject.name.strategy", topic_record_subject_name_strategy)
        self._schema_ids = {}  # subject -> id

    def __call__(self, obj, ctx):
        if obj is None:
            return None
        subject = self._subject_name_func(ctx, self._record_name)
        if subject not in self._schema_ids:
            self._schema_ids[subject] = self._registry.register_schema(subject, self._schema)
        out = io.BytesIO()
        out.write(struct.pack(">bI", 0, self._schema_ids[subject]))
        try:
            self._writer.write(self._to_dict(obj, ctx) if self._to_dict else obj, self._binary_encoder(out))
        except Exception as e:  # avro.errors.AvroTypeException: a field of the wrong type
            raise SerializationError(str(e))
        return out.getvalue()


def batch_serializer(schema_registry_client):
    """The value serializer: confluent-kafka's AvroSerializer when fastavro is there, else the python3-avro one."""
    conf = {"subject.name.strategy": topic_record_subject_name_strategy}
    try:
        from confluent_kafka.schema_registry.avro import AvroSerializer  # imports fastavro
    except ImportError:
        print("produce_batches: no fastavro here; writing the wire format with python3-avro", file=sys.stderr)
        return WireFormatAvroSerializer(schema_registry_client, READING_BATCH_SCHEMA, batch_to_dict, conf)
    return AvroSerializer(schema_registry_client, READING_BATCH_SCHEMA, batch_to_dict, conf)


def millis_to_datetime(ms):
    """timestamp-millis as both Avro libraries take it: an aware UTC datetime (python3-avro refuses ints and naive ones)."""
    return EPOCH + datetime.timedelta(milliseconds=ms)


def generate(seed, count):
    """COUNT batches, each ``(device, [(metric, tags, [(timestamp_ms, value), ...]), ...])``, the same for one seed."""
    rng = random.Random(seed)
    batches = []
    earlier = {}  # (device, metric, tags as a sorted tuple) -> [(timestamp, value), ...] already in a batch
    for _ in range(count):
        device = rng.choice(DEVICES)
        if batches and rng.random() < 0.05:
            # The same batch again, as a producer that retries after a timeout would send it: exact duplicates.
            same_device = [b for b in batches if b[0] == device]
            if same_device:
                batches.append(rng.choice(same_device))
                continue
        entries = []
        for metric in rng.sample(sorted(UNITS), rng.randint(1, 3)):
            tags = {"unit": UNITS[metric]}
            if rng.random() < 0.5:
                tags["site"] = rng.choice(SITES)
            series_key = (device, metric, tuple(sorted(tags.items())))
            points = []
            for _ in range(rng.randint(1, 6)):
                seen = earlier.get(series_key, [])
                if seen and rng.random() < 0.2:
                    # An earlier reading of the series again: as it was (a duplicate) or with a new value (a correction).
                    timestamp, value = rng.choice(seen)
                    if rng.random() < 0.5:
                        value = round(value + rng.choice([-1, 1]) * rng.uniform(0.1, 5), 3)
                else:
                    timestamp = T0_MS + rng.randrange(3_600_000)
                    value = round(rng.gauss(50, 20), 3)
                points.append((timestamp, value))
                earlier.setdefault(series_key, []).append((timestamp, value))
            entries.append((metric, tags, points))
        batches.append((device, entries))
    return batches


def batch_to_dict(batch, ctx):
    """The Avro datum of a batch: python3-avro wants every field, defaults included."""
    device, entries = batch
    return {
        "deviceId": device,
        "tenant": None,
        "series": [{"metric": metric, "tags": tags,
                    "points": [{"timestamp": millis_to_datetime(t), "value": float(v)} for t, v in points]}
                   for metric, tags, points in entries],
    }


def main(argv):
    if len(argv) != 6:
        print("usage: produce_batches.py BOOTSTRAP_SERVERS REGISTRY_URL TOPIC SEED COUNT", file=sys.stderr)
        return 2
    bootstrap_servers, registry_url, topic, seed, count = argv[1], argv[2], argv[3], int(argv[4]), int(argv[5])

    schema_registry_client = SchemaRegistryClient({"url": registry_url})
    producer = SerializingProducer({
        "bootstrap.servers": bootstrap_servers,
        "partitioner": "murmur2_random",  # murmur2 of the key, as Java's client: the device's own partition
        "enable.idempotence": True,
        "acks": "all",
        "key.serializer": StringSerializer("utf_8"),
        "value.serializer": batch_serializer(schema_registry_client),
    })

    failures = []

    def on_delivery(err, msg):
        if err is not None:
            failures.append("batch of %s not delivered: %s" % (msg.key().decode("utf-8"), err))

    batches = generate(seed, count)
    try:
        for batch in batches:
            while True:
                try:
                    producer.produce(topic, key=batch[0], value=batch, on_delivery=on_delivery)
                    break
                except BufferError:  # the local queue is full: serve delivery reports, then try again
                    producer.poll(0.5)
            producer.poll(0)
    except (KafkaException, SerializationError) as e:
        # ValueSerializationError (a SerializationError) wraps what the serializer raised, e.g. the registry's error.
        print("produce_batches: could not send to %s (registry %s): %s" % (topic, registry_url, e), file=sys.stderr)
        return 1
    left = producer.flush(60)
    if left:
        failures.append("%d batches still not delivered after 60 s" % left)
    if failures:
        print("produce_batches: %d delivery errors, first: %s" % (len(failures), failures[0]), file=sys.stderr)
        return 1

    for device, entries in batches:
        for metric, tags, points in entries:
            for timestamp, value in points:
                print(json.dumps({"device": device, "metric": metric, "timestamp": timestamp, "value": value,
                                  "tags": tags}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
