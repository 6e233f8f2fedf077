import PinSetStorage
import Testing

@testable import PinSetServer

/// `ServiceError.status` lives in PinSetStorage (the CLI prints it without the server); the problem answer the server
/// sends lives in PinSetServer and takes its status from there. Every code answers with that status, the generic 500
/// of a storage failure included.
@Suite struct ServiceErrorStatusTests {
    @Test func statusMatchesTheProblemAnswer() {
        for code in ServiceError.Code.allCases {
            let error = ServiceError(code, "detail")
            #expect(error.status == error.problem.status, "\(code)")
        }
    }
}
