// A stand-in for the part of Alamofire 5's public interface that examples/Alamofire uses, declared by hand from
// Alamofire's documentation (ServerTrustManager, ServerTrustEvaluating, Session): the same names, labels, types
// and overridability, no implementation. It exists only so that scripts/apple_stub_check.py can type-check the
// example on Linux; nothing here runs. Alamofire is not a dependency of this package and must not become one.
import Foundation
import Security

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Alamofire's evaluator protocol (`Source/Features/ServerTrustEvaluation.swift`).
public protocol ServerTrustEvaluating: Sendable {
    func evaluate(_ trust: SecTrust, forHost host: String) throws
}

/// Alamofire's per-host evaluator map; subclasses override `serverTrustEvaluator(forHost:)`.
open class ServerTrustManager: @unchecked Sendable {
    public let allHostsMustBeEvaluated: Bool
    public let evaluators: [String: any ServerTrustEvaluating]

    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
    }

    open func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? { fatalError("stub") }
}

/// Alamofire's session (its convenience initializer takes more parameters, each with a default).
open class Session: @unchecked Sendable {
    public let session: URLSession

    public init(configuration: URLSessionConfiguration = .default, serverTrustManager: ServerTrustManager? = nil) {
        fatalError("stub")
    }
}
