import PinSetCore
import Testing

/// PROTOCOL §5/§6.2 step 1: the scan that finds a member name an object repeats.
@Suite struct JSONRepeatedMembersTests {
    func first(_ json: String) -> String? { JSONRepeatedMembers.first(in: Array(json.utf8)) }

    @Test func findsARepeatedNameAtAnyDepthAfterUnescaping() {
        #expect(first(#"{"a":1,"b":2}"#) == nil)
        #expect(first(#"{"a":1,"a":2}"#) == "a")
        #expect(first(#"{"x":{"a":1,"b":{"c":[{"d":1,"d":2}]}}}"#) == "d")
        #expect(first(#"{"a":1,"\u0061":2}"#) == "a")
        #expect(first(#"{"é":1,"\u00e9":2}"#) == "é")
        #expect(first(#"{"😀":1,"\ud83d\ude00":2}"#) == "😀")
    }

    @Test func valuesAndSiblingObjectsAreNotNames() {
        #expect(first(#"{"a":"a","b":"a"}"#) == nil)
        #expect(first(#"[{"a":1},{"a":2}]"#) == nil)
        #expect(first(#"{"a":{"a":{"a":1}}}"#) == nil)
        #expect(first(#"{"a":"x\",\"a\":1","b":["a","a"]}"#) == nil)
        // A lone surrogate is kept apart from every other name.
        #expect(first(#"{"\ud800":1,"\udc00":2,"":3}"#) == nil)
    }
}
