import Testing

@testable import ReadCache

/// The allocation-free `If-None-Match` matcher of the read path (RFC 9110 §13.1.2, weak comparison for GET).
@Suite struct IfNoneMatchTests {
    private let etag = #""4YiYSVEyTewtY9-JoimSmrAa""#

    private func matches(_ header: String) -> Bool {
        var header = header
        var etag = etag
        return header.withUTF8 { header in
            etag.withUTF8 { etag in
                IfNoneMatch.matches(UnsafeRawBufferPointer(header), etag: UnsafeRawBufferPointer(etag))
            }
        }
    }

    @Test func matchesTheETagItselfAListWeakFormsAndStar() {
        #expect(matches(etag))
        #expect(matches("W/\(etag)"))
        #expect(matches(#""a", "b", "# + etag))
        #expect(matches(#""a",W/"# + etag + #" ,"c""#))
        #expect(matches(" \t\(etag)\t "))
        #expect(matches("*"))
        #expect(matches(#""a", *"#))
    }

    @Test func refusesEverythingElse() {
        #expect(!matches(""))
        #expect(!matches(","))
        #expect(!matches(" , ,"))
        #expect(!matches(#""other""#))
        #expect(!matches(String(etag.dropLast())))
        #expect(!matches(etag + "x"))
        #expect(!matches(String(etag.dropFirst().dropLast())))  // unquoted
        #expect(!matches("w/\(etag)"))  // the weak prefix is case-sensitive
        #expect(!matches("W/"))
        #expect(!matches("**"))
        #expect(!matches(#""a" "# + etag))  // two tags without a comma are one member
    }
}
