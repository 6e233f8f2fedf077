import PinSetStorage
import Testing

@testable import PinSetServer

/// `ServiceError.status` lives in PinSetStorage (the CLI prints it without the server); the problem answer the server
/// sends lives in PinSetServer. Both must give every code the same status.
@Suite struct ServiceErrorStatusTests {
    @Test func statusMatchesTheProblemAnswer() {
        for code in ServiceError.Code.allCases {
            let error = ServiceError(code, "detail")
            #expect(error.status == error.problem.status, "\(code)")
        }
    }
}
