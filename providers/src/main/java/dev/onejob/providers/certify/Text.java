package dev.onejob.providers.certify;

import java.time.Duration;

/** Small text helpers for the one-line summaries of certification checks. Pure; owns nothing. */
final class Text {
    static final int MAX_SUMMARY = 400;

    private Text() {
    }

    /** {@code 5s}, {@code 100ms}: a timeout as a providers file writes it. */
    static String duration(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    /** {@code text} on one line, cut to {@value #MAX_SUMMARY} characters with "..." when longer. */
    static String shorten(String text) {
        String oneLine = text.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= MAX_SUMMARY ? oneLine : oneLine.substring(0, MAX_SUMMARY - 3) + "...";
    }
}
