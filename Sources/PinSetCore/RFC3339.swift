import Foundation

/// RFC 3339 timestamps in UTC, as the protocol writes them: `2026-11-21T14:32:57Z`.
public enum RFC3339 {
    /// Formats a date with seconds precision and a `Z` suffix (fractions are truncated).
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of ``format(_:)`` to `bytes`, without intermediate strings (``JSONWriter``).
    public static func append(_ date: Date, to bytes: inout [UInt8]) {
        let parts = CivilTime(epochSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
        // `value` in at least `width` digits, then `separator`.
        func field(_ value: Int64, _ width: Int, _ separator: Unicode.Scalar) {
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            let magnitude = Int(value.magnitude)
            var divisor = 1
            var count = 1
            while magnitude / divisor >= 10 {
                divisor *= 10
                count += 1
            }
            for _ in count..<max(width, count) { bytes.append(UInt8(ascii: "0")) }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
                divisor /= 10
            }
            bytes.append(UInt8(ascii: separator))
        }
        field(parts.year, 4, "-")
        field(parts.month, 2, "-")
        field(parts.day, 2, "T")
        field(parts.hour, 2, ":")
        field(parts.minute, 2, ":")
        field(parts.second, 2, "Z")
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; lowercase `t`/`z` are accepted as RFC 3339 allows.
    /// Returns `nil` for anything else, including out-of-range fields.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
            let day = number(8, 2), bytes[10] == 0x54 || bytes[10] == 0x74,
            let hour = number(11, 2), bytes[13] == 0x3A, let minute = number(14, 2), bytes[16] == 0x3A,
            let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 0x5A, 0x7A:
            guard index + 1 == bytes.count else { return nil }
        case 0x2B, 0x2D:
            guard index + 6 == bytes.count, let offHour = number(index + 1, 2), bytes[index + 3] == 0x3A,
                let offMinute = number(index + 4, 2), offHour < 24, offMinute < 60
            else { return nil }
            offset = (offHour * 3600 + offMinute * 60) * (bytes[index] == 0x2B ? 1 : -1)
        default:
            return nil
        }
        // Refuse days the month does not have (Feb 30, Apr 31, Feb 29 outside leap years).
        guard day <= CivilTime.daysIn(month: month, year: year) else { return nil }
        let epoch = CivilTime.epochSeconds(
            year: Int64(year), month: Int64(month), day: Int64(day),
            seconds: Int64(hour * 3600 + minute * 60 + min(second, 59)))
        return Date(timeIntervalSince1970: TimeInterval(epoch - Int64(offset)) + fraction)
    }
}

/// UTC calendar arithmetic in 64-bit integers (Howard Hinnant's `days_from_civil` / `civil_from_days`).
///
/// No `time_t`, `gmtime_r` or `timegm`: `time_t` is 32 bits on watchOS devices (arm64_32), where dates after
/// 2038 would trap or wrap, and the C calls differ between platforms.
struct CivilTime {
    let year: Int64
    let month: Int64
    let day: Int64
    let hour: Int64
    let minute: Int64
    let second: Int64

    /// The UTC fields of `epochSeconds` (seconds since 1970-01-01T00:00:00Z, negative before).
    init(epochSeconds: Int64) {
        let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
        let secondOfDay = epochSeconds - days * 86_400
        hour = secondOfDay / 3600
        minute = secondOfDay % 3600 / 60
        second = secondOfDay % 60
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Seconds since the epoch of `year-month-day` at `seconds` past midnight UTC.
    static func epochSeconds(year: Int64, month: Int64, day: Int64, seconds: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return (era * 146_097 + dayOfEra - 719_468) * 86_400 + seconds
    }

    /// The number of days in `month` (1–12) of `year`.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
