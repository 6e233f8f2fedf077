package dev.pinset.internal;

/**
 * RFC 3339 times as the protocol writes them ({@code 2026-11-21T14:32:57Z}), parsed and formatted as epoch
 * milliseconds in UTC with the same rules as the Swift client. No {@code java.time} (Android API 26).
 */
public final class Rfc3339 {
    private Rfc3339() {}

    /**
     * Parses {@code YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)} ({@code t}/{@code z} accepted); returns
     * {@code null} for anything else, including days a month does not have.
     */
    public static Long parse(String text) {
        int n = text.length();
        if (n < 20) return null;
        int year = number(text, 0, 4), month = number(text, 5, 2), day = number(text, 8, 2);
        int hour = number(text, 11, 2), minute = number(text, 14, 2), second = number(text, 17, 2);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return null;
        char t = text.charAt(10);
        if (text.charAt(4) != '-' || text.charAt(7) != '-' || (t != 'T' && t != 't')) return null;
        if (text.charAt(13) != ':' || text.charAt(16) != ':') return null;
        if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
        int index = 19;
        long fractionMillis = 0;
        if (text.charAt(index) == '.') {
            index++;
            int start = index;
            double fraction = 0;
            double scale = 0.1;
            while (index < n && text.charAt(index) >= '0' && text.charAt(index) <= '9') {
                fraction += (text.charAt(index) - '0') * scale;
                scale /= 10;
                index++;
            }
            if (index == start) return null;
            fractionMillis = (long) Math.floor(fraction * 1000);
        }
        if (index >= n) return null;
        long offset = 0;
        char zone = text.charAt(index);
        if (zone == 'Z' || zone == 'z') {
            if (index + 1 != n) return null;
        } else if (zone == '+' || zone == '-') {
            if (index + 6 != n || text.charAt(index + 3) != ':') return null;
            int offHour = number(text, index + 1, 2), offMinute = number(text, index + 4, 2);
            if (offHour < 0 || offMinute < 0 || offHour > 23 || offMinute > 59) return null;
            offset = (offHour * 3600L + offMinute * 60L) * (zone == '+' ? 1 : -1);
        } else {
            return null;
        }
        if (day > daysIn(month, year)) return null;
        long seconds = daysFromCivil(year, month, day) * 86_400L + hour * 3600L + minute * 60L + Math.min(second, 59);
        return (seconds - offset) * 1000 + fractionMillis;
    }

    /** Formats epoch milliseconds with seconds precision and {@code Z} (fractions truncated). */
    public static String format(long epochMillis) {
        long seconds = Math.floorDiv(epochMillis, 1000L);
        long days = Math.floorDiv(seconds, 86_400L);
        long secondOfDay = seconds - days * 86_400L;
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097L);
        long dayOfEra = z - era * 146_097;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long monthIndex = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * monthIndex + 2) / 5 + 1;
        long month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        return String.format(
                "%04d-%02d-%02dT%02d:%02d:%02dZ",
                year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60);
    }

    private static int number(String text, int start, int count) {
        if (start + count > text.length()) return -1;
        int value = 0;
        for (int i = start; i < start + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') return -1;
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static int daysIn(int month, int year) {
        switch (month) {
            case 2:
                boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
                return leap ? 29 : 28;
            case 4: case 6: case 9: case 11:
                return 30;
            default:
                return 31;
        }
    }

    private static long daysFromCivil(long year, long month, long day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400L);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }
}
