import Testing

@testable import PinSetCore

@Test(arguments: [
    ("API.Example.COM", "api.example.com"),
    ("api.example.com.", "api.example.com"),
    ("xn--bcher-kva.example", "xn--bcher-kva.example"),
    ("a-b.c1", "a-b.c1"),
])
func hostNamesNormalise(input: String, expected: String) throws {
    #expect(try HostName.normalize(input) == expected)
}

@Test(arguments: [
    "", ".", "api.example.com:443", "api..example.com", "-api.example.com", "api-.example.com",
    "bücher.example", "api.example.com/x", "1.2.3.4", "[::1]", "a b.com", "api.example.com..",
    String(repeating: "a", count: 64) + ".com", String(repeating: "a.", count: 130) + "com",
])
func badHostNamesAreRefused(input: String) {
    #expect(throws: HostName.Error.self) { try HostName.normalize(input) }
}

@Test func lookupChainGoesFromHostToParents() {
    #expect(HostName.lookupChain("a.b.example.com") == ["a.b.example.com", "b.example.com", "example.com", "com"])
}
