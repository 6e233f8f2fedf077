import Foundation
import MicroHTTPD
import PinSetCore
import PinSetLogServer
import TransparencyLog

/// The transparency log's routes (PROTOCOL §7): the C2SP tlog-tiles files, the documents' proofs, and the
/// admin view of the log. Everything public is served from memory, built when a checkpoint was published.
extension PinSetRouter {
    /// `GET /log/checkpoint` and `GET /log/tile/…`: the file, `304`, or `404`.
    func serveLogFile(_ context: RouteContext) throws -> HTTPResponse {
        guard let log else { throw Self.noLog }
        let path = context.request.path.dropFirst("/log/".count)
        guard let file = try log.files.resource(path) else {
            throw Problem.notFound(
                "the log has no file \(path.prefix(100)) (C2SP tlog-tiles paths; see /log/checkpoint)")
        }
        return .prepared(file.response(to: context.request))
    }

    /// `GET /pins/{host}/proof`: the C2SP tlog-proof of the document `GET /pins/{host}` serves, with its ETag.
    func servePinsProof(_ context: RouteContext) throws -> HTTPResponse {
        guard let log else { throw Self.noLog }
        let host = try context.host()
        guard let proof = log.proofs.answer(.pins(host), to: context.request) else {
            throw Problem.notFound("no pin set is published for \(host)")
        }
        return .prepared(proof)
    }

    /// `GET /trust/{version}/proof`: the C2SP tlog-proof of that trust document, with its ETag.
    func serveTrustProof(_ context: RouteContext) throws -> HTTPResponse {
        guard let log else { throw Self.noLog }
        let version = try Self.trustVersion(context.parameters[0])
        guard let proof = log.proofs.answer(.trust(version), to: context.request) else {
            throw Problem.notFound("there is no trust document version \(version)")
        }
        return .prepared(proof)
    }

    /// `GET /admin/log`: tree size, the latest checkpoint, its cosigners, and each witness's last answer.
    func adminLog(_ context: RouteContext) throws -> HTTPResponse {
        guard let log else { throw Self.noLog }
        let checkpoint = log.log.checkpoint
        return try json(
            200,
            LogStatusBody(
                origin: log.log.origin, treeSize: log.log.treeSize, checkpointSize: log.log.checkpointSize,
                checkpoint: checkpoint.map { String(decoding: $0.bytes, as: UTF8.self) },
                cosignedBy: checkpoint.map { $0.signatures.dropFirst().map(\.name) } ?? [],
                witnesses: witnesses?.status ?? [], openForks: log.forks.open, forks: try log.forks.all()))
    }

    /// `POST /admin/log/forks/{id}/acknowledge`: stops showing fork `id` as open (PROTOCOL §7.2); `204`, or `404`
    /// when there is no open fork of that number.
    func acknowledgeFork(_ context: RouteContext) throws -> HTTPResponse {
        guard let log else { throw Self.noLog }
        let text = context.parameters[0]
        guard let id = Int(text), id >= 1, text.utf8.count <= 18, text.first != "+" else {
            throw Problem.badRequest("the fork number must be a whole number ≥ 1")
        }
        guard try log.forks.acknowledge(id) else { throw Problem.notFound("there is no open log fork \(id)") }
        return .dynamic(status: 204, headers: [], body: [])
    }

    /// The `404` of every log route on a server started without `--log-key`.
    static var noLog: Problem {
        Problem.notFound("this server keeps no transparency log (start it with --log-key; PROTOCOL §7)")
    }

    /// A trust document version in a path: a whole number ≥ 1 without sign or leading zero, else `400`.
    static func trustVersion(_ text: Substring) throws -> Int {
        guard let number = Int(text), number >= 1, text.utf8.count <= 18, text.first != "0", text.first != "+" else {
            throw Problem.badRequest("the trust document version must be a whole number ≥ 1")
        }
        return number
    }

    /// The answer of `GET /admin/log`.
    struct LogStatusBody: Encodable {
        let origin: String
        let treeSize: Int
        let checkpointSize: Int
        let checkpoint: String?
        let cosignedBy: [String]
        let witnesses: [WitnessWorker.Status]
        /// Forks not acknowledged yet.
        let openForks: Int
        /// The recorded forks, newest first, acknowledged ones included.
        let forks: [LogForks.Fork]
    }
}
