import Foundation
import PinSetCore

extension PinTrustManager {
    /// Installs documents the app ships in its bundle: the output of `pinset export`, before the first fetch.
    ///
    /// Each file of `directory/pins/` (or of `directory` itself when it has no `pins` folder) is the signed
    /// document of the host it is named after. Every document is checked as a persisted one is
    /// (``installTrusted(document:for:)``): signature and trusted key, host, and rollback against the set in force. Its
    /// time is not checked: an expired bundled document becomes a stale set (``PinningOptions/staleSetPolicy``).
    /// A refused file (tampered, another host's, signed by an unknown key) changes nothing and does not stop the
    /// others.
    ///
    /// With a tlog-policy (``PinningOptions/logPolicy``), each document needs its C2SP tlog-proof in
    /// `directory/proofs/<host>` (as `GET /pins/<host>/proof` serves it): PROTOCOL §7.4 steps 1–2 are checked, and
    /// step 3 only against a largest checkpoint of the same size (offline there are no tiles). A missing or
    /// failing proof refuses the document (``DocumentRejectionCode/notLogged``, or
    /// ``DocumentRejectionCode/logFork``). A bundled proof never becomes the largest checkpoint.
    ///
    /// In an Apple app, add the export directory to the target as a *folder reference*, so that its `pins/`
    /// folder keeps its layout, and pass `Bundle.main.url(forResource: "pinset-export", withExtension: nil)`.
    ///
    /// - Parameter directory: the directory `pinset export --out` wrote.
    /// - Returns: the outcome for each file, by host name; empty when the directory cannot be read.
    @discardableResult
    public func installBundledDocuments(directory: URL) -> [String: Result<VerifiedDocument, DocumentRejection>] {
        let pins = directory.appendingPathComponent("pins", isDirectory: true)
        var isDirectory: ObjCBool = false
        let folder =
            FileManager.default.fileExists(atPath: pins.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? pins : directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var outcomes: [String: Result<VerifiedDocument, DocumentRejection>] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            let file = folder.appendingPathComponent(name, isDirectory: false)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            guard let size = attributes[.size] as? Int, size <= verifier.maxBytes else {
                outcomes[name] = .failure(
                    DocumentRejection(.tooLarge, "\(name) is larger than \(verifier.maxBytes) bytes"))
                continue
            }
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            let bytes = [UInt8](data)
            if let log {
                let proof = directory.appendingPathComponent("proofs", isDirectory: true)
                    .appendingPathComponent(name, isDirectory: false)
                if let refusal = log.checkBundled(bytes, proof: proof, trust: trustStore?.current) {
                    outcomes[name] = .failure(refusal)
                    continue
                }
            }
            outcomes[name] = installTrusted(document: bytes, for: name)
        }
        return outcomes
    }
}
