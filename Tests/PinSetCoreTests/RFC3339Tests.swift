import Foundation
import Testing

@testable import PinSetCore

/// RFC3339 does its calendar arithmetic in 64-bit integers (no `time_t`, which is 32 bits on watchOS devices):
/// these hold it to Foundation's Gregorian calendar on both sides of 2038 and of 1970.
@Suite struct RFC3339Tests {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func foundationFields(_ seconds: Int64) -> [Int] {
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!]
    }

    @Test func civilFieldsMatchFoundationAcross2038And1970() {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [
            0, -1, 86_399, 86_400, 2_147_483_647, 2_147_483_648, 4_102_444_800, 951_782_400, 253_402_300_799,
            -2_208_988_800,
        ]
        for _ in 0..<2000 { samples.append(Int64.random(in: -2_208_988_800...253_402_300_799, using: &generator)) }
        for seconds in samples {
            let civil = CivilTime(epochSeconds: seconds)
            let mine = [civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second].map { Int($0) }
            #expect(mine == Self.foundationFields(seconds), "\(seconds)")
            #expect(
                CivilTime.epochSeconds(
                    year: civil.year, month: civil.month, day: civil.day,
                    seconds: civil.hour * 3600 + civil.minute * 60 + civil.second) == seconds)
        }
    }

    @Test func datesAfter2038FormatAndParse() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 2_147_483_648)) == "2038-01-19T03:14:08Z")
        #expect(RFC3339.parse("2038-01-19T03:14:08Z") == Date(timeIntervalSince1970: 2_147_483_648))
        #expect(RFC3339.parse("2100-03-01T00:00:00Z") == Date(timeIntervalSince1970: 4_107_542_400))
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test func daysTheMonthDoesNotHaveAreRefused() {
        #expect(RFC3339.parse("2024-02-29T00:00:00Z") != nil)
        #expect(RFC3339.parse("2000-02-29T00:00:00Z") != nil)
        #expect(RFC3339.parse("2023-02-29T00:00:00Z") == nil)
        #expect(RFC3339.parse("2100-02-29T00:00:00Z") == nil)
        #expect(RFC3339.parse("2026-04-31T00:00:00Z") == nil)
        #expect(RFC3339.parse("2026-02-30T00:00:00Z") == nil)
    }
}
