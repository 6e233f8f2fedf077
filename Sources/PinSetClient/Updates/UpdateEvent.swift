import PinSetCore
import TransparencyLog

/// What the updater tells the app (``PinSetUpdater/events``).
public enum UpdateEvent: Sendable {
    /// A persisted document was loaded at start.
    case loaded(host: String, version: Int)
    /// A fetched document was accepted and is now in force (it may be a re-signing of the same version).
    case updated(host: String, version: Int)
    /// The server answered `304 Not Modified`.
    case notModified(host: String)
    /// A fetched document was refused; the previous set stays in force.
    case rejected(host: String, DocumentRejection)
    /// The fetch failed (transport error or unexpected HTTP status); retried with backoff.
    case fetchFailed(host: String, UpdateError)
    /// A document was accepted but could not be persisted.
    case persistenceFailed(host: String, PinStorage.Error)
    /// A chain matched no pin; for an enforcing set, ``PinFailure/classification`` says whether a newer set
    /// accepts it (``PinSetUpdater/reportPinFailure(_:port:)``).
    case pinFailure(PinFailure)
    /// Trust documents (PROTOCOL §6) persisted earlier were verified again from the shipped root keys at start;
    /// `version` is in force.
    case trustLoaded(version: Int)
    /// A trust document was accepted: `version` is in force; `droppedKids` are the signing keys it no longer lists.
    case trustUpdated(version: Int, droppedKids: [String])
    /// A trust document was refused (PROTOCOL §6.2); the trust in force and every set in force are unchanged.
    case trustRejected(TrustRejection)
    /// The server offered a validly signed trust document with the version in force but other bytes (PROTOCOL §6.2,
    /// equivocation): refused, the trust in force is kept; both documents are here for the application to report.
    /// A ``trustRejected(_:)`` with code ``TrustRejectionCode/equivocation`` follows.
    case trustEquivocation(version: Int, inForce: [UInt8], offered: [UInt8])
    /// `GET /trust` or `/trust/{n}` failed; retried at the next refresh.
    case trustFetchFailed(UpdateError)
    /// The set in force for `host` was signed by `kid`, which the trust in force no longer lists; the host is
    /// re-fetched at once and its old set stays in force until a document signed by a listed key replaces it.
    case signingKeyDropped(host: String, kid: String)
    /// A trust document was accepted but could not be persisted.
    case trustPersistenceFailed(PinStorage.Error)
    /// With a tlog-policy (PROTOCOL §7.4): the proof of `document` (`/pins/<host>` or `/trust/<version>`) carried a
    /// checkpoint inconsistent with the largest one accepted before: the log showed this client two histories.
    /// The document was refused and the kept checkpoint stays; both signed notes are in the ``LogFork``, kept in
    /// ``PinStorage`` (``PinStorage/saveFork(_:)``) and posted to the report URI as a ``LogForkReport``. A
    /// ``rejected(host:_:)`` with ``DocumentRejectionCode/logFork`` (or a ``trustRejected(_:)`` with
    /// ``TrustRejectionCode/logFork``) follows.
    case logFork(document: String, LogFork)
    /// With a tlog-policy: the largest accepted checkpoint could not be persisted (a fork after a restart may go
    /// unseen).
    case logPersistenceFailed(PinStorage.Error)
}

/// Why a fetch failed.
public struct UpdateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Equatable {
        /// The transport threw (DNS, TCP, TLS, timeout).
        case transport
        /// The server answered a status other than 200 or 304.
        case httpStatus
    }

    /// The kind of failure.
    public let code: Code
    /// The HTTP status, for ``Code/httpStatus``.
    public let status: Int?
    /// What happened.
    public let detail: String

    /// Creates an error.
    public init(_ code: Code, status: Int? = nil, _ detail: String) {
        self.code = code
        self.status = status
        self.detail = detail
    }

    /// `"<code>: <detail>"`.
    public var description: String { "\(code.rawValue): \(detail)" }
}
