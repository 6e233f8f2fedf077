import Foundation
import PinSetCore
import PinSetFuzzing

/// A reproducible pseudo-random generator (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Produces inputs for ``FuzzHarness``: seeds changed by one to four stacked mutations, some byte-level (bit
/// flips, splices, truncations), some aware of the formats (JSON numbers and strings, base64url segments, and
/// documents re-signed after their header or payload changed, so the checks after the signature run too).
struct MutationEngine {
    /// Seeds by target (the input's first byte); the original seeds are the first entries of each pool.
    private var pools: [[[UInt8]]]
    private let originals: [Int]
    /// Targets drawn in these proportions: the verifier targets are where the security properties live.
    private static let weights: [FuzzHarness.Target] = [
        .document, .document, .document, .signedParts, .signedParts, .payload, .adminSet, .adminPins, .certificate,
        .report, .hostName, .base64url, .trust, .trust, .tlog, .tlog,
    ]
    private let harness: FuzzHarness
    private var rng: SplitMix64

    init(seeds: [[UInt8]], harness: FuzzHarness, seed: UInt64) {
        var pools = [[[UInt8]]](repeating: [], count: FuzzHarness.Target.allCases.count)
        for input in seeds { pools[Self.pool(of: input)].append(input) }
        self.pools = pools
        originals = pools.map(\.count)
        self.harness = harness
        rng = SplitMix64(seed: seed)
    }

    private static func pool(of input: [UInt8]) -> Int { Int(input.first ?? 0) % FuzzHarness.Target.allCases.count }

    /// Any seed (for splicing).
    private mutating func anySeed() -> [UInt8] {
        let pool = pools[Int.random(in: 0..<pools.count, using: &rng)]
        return pool.isEmpty ? [0] : pool[Int.random(in: 0..<pool.count, using: &rng)]
    }

    private static let interestingBytes: [UInt8] = Array(#"0-+.eE"\{}[],: "#.utf8) + [0, 0x7f, 0x80, 0xc3, 0xff, 0x0a]
    private static let interestingNumbers = [
        "-1", "0", "1", "-0", "1.5", "1e309", "-1e309", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "2147483648", "1795000000", "null", "true", "\"5\"", "[]", "{}",
    ]
    private static let interestingStrings = [
        "", "none", "EdDSA", "eddsa", "HS256", "pinset+jws", "JWT", "fuzz.example.com", "FUZZ.example.com.",
        "other.example.com", "*.example.com", "..", "a..b", "%00", "\\u0000", "\\ud800", "é", "xn--", "current",
        "backup", "future", "spki", "certificate", "2026-11-21T00:00:00Z", "2026-11-21T00:00:00+01:00",
        "2026-13-40T25:61:61Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "AAAA", "=",
        String(repeating: "a", count: 300), String(repeating: "A", count: 44),
    ]

    /// The next input.
    mutating func next() -> [UInt8] {
        let pool = pools[Int(Self.weights.randomElement(using: &rng)!.rawValue)]
        var input = pool[Int.random(in: 0..<pool.count, using: &rng)]
        // Half of the document inputs keep valid JSON (only values change), so they reach the checks after
        // parsing: the signature, and once re-signed, host, time and rollback.
        let target = FuzzHarness.Target.allCases[Int(input[0]) % FuzzHarness.Target.allCases.count]
        let structured =
            (target == .document || target == .signedParts || target == .payload) && Bool.random(using: &rng)
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            if structured {
                input =
                    target == .document
                    ? resign(input, jsonOnly: true) : replaceToken(input, number: Bool.random(using: &rng))
            } else {
                input = mutate(input)
            }
        }
        if Int.random(in: 0..<64, using: &rng) == 0 { input[0] = UInt8.random(in: 0...255, using: &rng) }
        return input
    }

    /// Feedback: an input that reached a rare verifier outcome (or, now and then, any input) becomes a seed, so
    /// mutations stack over generations where they got furthest. The pool is bounded; the original seeds stay.
    mutating func keep(_ input: [UInt8], outcome: String?, outcomes: [String: Int]) {
        let rare = outcome.map { outcomes[$0, default: 0] <= 200 } ?? false
        guard rare || Int.random(in: 0..<64, using: &rng) == 0 else { return }
        let index = Self.pool(of: input)
        if pools[index].count < 256 {
            pools[index].append(input)
        } else {
            pools[index][Int.random(in: originals[index]..<256, using: &rng)] = input
        }
    }

    private mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        guard input.count > 1 else { return input + [UInt8.random(in: 0...255, using: &rng)] }
        var bytes = input
        let position = Int.random(in: 1..<bytes.count, using: &rng)
        switch Int.random(in: 0..<13, using: &rng) {
        case 0:
            bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
        case 1:
            bytes[position] = UInt8.random(in: 0...255, using: &rng)
        case 2:
            bytes[position] = Self.interestingBytes.randomElement(using: &rng)!
        case 3:
            bytes.insert(
                contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng)
                },
                at: position)
        case 4:
            bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...16, using: &rng)))
        case 5:
            let end = min(bytes.count, position + Int.random(in: 1...32, using: &rng))
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        case 6:
            bytes.removeSubrange(position...)
        case 7:
            // Splice: our head, another seed's tail.
            let other = anySeed()
            if other.count > 1 {
                bytes = Array(bytes[..<position] + other[Int.random(in: 1..<other.count, using: &rng)...])
            }
        case 8:
            bytes = replaceToken(bytes, number: true)
        case 9:
            bytes = replaceToken(bytes, number: false)
        case 10, 11:
            bytes = mutateBase64Segment(bytes)
        default:
            bytes = resign(bytes, jsonOnly: false)
        }
        return bytes.isEmpty ? [input[0]] : bytes
    }

    /// Replaces a JSON number (or a string's content) with an interesting one.
    private mutating func replaceToken(_ bytes: [UInt8], number: Bool) -> [UInt8] {
        let spans = number ? numberSpans(bytes) : stringSpans(bytes)
        guard let span = spans.randomElement(using: &rng) else { return bytes }
        let replacement =
            number
            ? Self.interestingNumbers.randomElement(using: &rng)!
            : Self.interestingStrings.randomElement(using: &rng)!
        return Array(bytes[..<span.lowerBound]) + Array(replacement.utf8) + Array(bytes[span.upperBound...])
    }

    /// Decodes a base64url string value, mutates the bytes inside, encodes it again.
    private mutating func mutateBase64Segment(_ bytes: [UInt8]) -> [UInt8] {
        let spans = stringSpans(bytes).filter { $0.count >= 8 }
        guard let span = spans.randomElement(using: &rng),
            let decoded = Base64URL.decode(String(decoding: bytes[span], as: UTF8.self)), decoded.count > 1
        else { return bytes }
        let inner = mutate([0] + decoded).dropFirst()
        return Array(bytes[..<span.lowerBound]) + Array(Base64URL.encode(inner).utf8) + Array(bytes[span.upperBound...])
    }

    /// A `document` input whose header or payload is mutated as JSON and then signed with the trusted key.
    private mutating func resign(_ bytes: [UInt8], jsonOnly: Bool) -> [UInt8] {
        guard let document = try? JSONDecoderShim.envelope(Array(bytes.dropFirst())),
            var header = Base64URL.decode(document.protected), var payload = Base64URL.decode(document.payload)
        else { return bytes }
        let number = Bool.random(using: &rng)
        if Int.random(in: 0..<4, using: &rng) == 0 {
            header = Array((jsonOnly ? replaceToken([0] + header, number: number) : mutate([0] + header)).dropFirst())
        } else {
            payload = Array(
                (jsonOnly ? replaceToken([0] + payload, number: number) : mutate([0] + payload)).dropFirst())
        }
        return [bytes[0]] + harness.sign(header: header, payload: payload)
    }

    private func stringSpans(_ bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var start: Int? = nil
        var index = 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") && start != nil {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") {
                if let open = start {
                    spans.append(open..<index)
                    start = nil
                } else {
                    start = index + 1
                }
            }
            index += 1
        }
        return spans
    }

    private func numberSpans(_ bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var index = 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ":") {
                var start = index + 1
                while start < bytes.count && bytes[start] == UInt8(ascii: " ") { start += 1 }
                var end = start
                while end < bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end])
                        || bytes[end] == UInt8(ascii: "-") || bytes[end] == UInt8(ascii: ".")
                {
                    end += 1
                }
                if end > start { spans.append(start..<end) }
            }
            index += 1
        }
        return spans
    }
}

/// Decodes a JWS envelope (kept apart so the engine reads as mutations only).
enum JSONDecoderShim {
    static func envelope(_ bytes: [UInt8]) throws -> SignedDocument {
        try JSONDecoder().decode(SignedDocument.self, from: Data(bytes))
    }
}
