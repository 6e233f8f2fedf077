import Foundation
import PinSetCore

/// The one configured JSON encoder and decoder pair of the admin API, used by the server to answer and by the
/// CLI to read the answers: sorted keys, no escaped slashes, dates as RFC 3339 UTC strings
/// (`2026-11-21T14:32:57Z`). The admin types (``HostDetail``, ``HostSummary``, ``HistoryEntry``,
/// ``TokenInfo``, ``ReportGroup``, ``ReportDay``) use synthesized `Codable` and rely on these strategies.
public enum AdminJSON {
    /// Encodes with sorted keys, unescaped slashes and RFC 3339 dates.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return encoder
    }()

    /// Decodes RFC 3339 dates (with or without fractions, any offset); anything else is a `DecodingError`.
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text.prefix(40))\" is not an RFC 3339 time")
            }
            return date
        }
        return decoder
    }()
}
