package dev.tspipe.query.testing;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.util.ArrayList;
import java.util.List;

/**
 * Names every test that skipped itself (an aborted assumption: a tool such as chromium, prometheus or a Python client is
 * not installed) in one block at the end of the run, with its reason, so that a green build cannot hide what it did
 * not test. Maven's own summary only counts them ("Skipped: 1"). Registered through
 * {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}.
 */
public final class SkippedTestsSummary implements TestExecutionListener {

    private final List<String> skipped = new ArrayList<>();

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            skipped.add(name(test) + ": " + result.getThrowable().map(Throwable::getMessage).orElse("no reason given"));
        }
    }

    private static String name(TestIdentifier test) {
        return test.getSource().map(source -> source instanceof MethodSource method
                ? method.getClassName() + "." + method.getMethodName()
                : source instanceof ClassSource type ? type.getClassName() : test.getDisplayName()).orElse(test.getDisplayName());
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (skipped.isEmpty()) {
            return;
        }
        StringBuilder block = new StringBuilder("\n[WARNING] tspipe: ").append(skipped.size())
                .append(skipped.size() == 1 ? " test or class skipped itself" : " tests or classes skipped themselves")
                .append(" (what they need is not installed; .ci/run installs it where it can):\n");
        skipped.forEach(one -> block.append("[WARNING]   SKIPPED ").append(one).append('\n'));
        System.out.print(block);
        System.out.flush();
    }
}
