import Testing

@testable import PinSetClient

/// `failure(for:)` (issue 38 item 3): the refusal of each refused task, by task identifier, the newest 256 kept.
/// The Apple adapters record into it; this is its platform-neutral part.
@Suite struct TaskFailuresTests {
    func refusal(_ host: String) -> PinRefusal { PinRefusal(host: host, decision: nil, detail: "refused") }

    @Test func eachTaskGetsItsOwnRefusal() {
        let failures = TaskFailures()
        failures.record(refusal("a.example"), task: 1)
        failures.record(refusal("b.example"), task: 2)
        #expect(failures.refusal(task: 1)?.host == "a.example")
        #expect(failures.refusal(task: 2)?.host == "b.example")
        #expect(failures.refusal(task: 3) == nil)
    }

    @Test func theNewest256AreKept() {
        let failures = TaskFailures()
        for task in 0..<300 { failures.record(refusal("h\(task).example"), task: task) }
        #expect(failures.refusal(task: 43) == nil)
        #expect(failures.refusal(task: 44)?.host == "h44.example")
        #expect(failures.refusal(task: 299)?.host == "h299.example")
        // A task recorded again keeps one place: the newest refusal replaces the older one.
        failures.record(refusal("again.example"), task: 299)
        failures.record(refusal("new.example"), task: 300)
        #expect(failures.refusal(task: 299)?.host == "again.example")
        #expect(failures.refusal(task: 44) == nil)
        #expect(failures.refusal(task: 45)?.host == "h45.example")
    }
}
