import CPKCS11
import Locking

/// One token of a module, found by its label, with the user logged in.
///
/// Sessions are opened once and reused: a signing thread takes an idle session from the pool (or opens one when
/// all are busy), uses it alone, and gives it back, so N threads signing at once hold N sessions. When a call
/// says the token went away or was reset (`CKR_SESSION_HANDLE_INVALID`, `CKR_TOKEN_NOT_PRESENT`,
/// `CKR_DEVICE_REMOVED`…), every session is dropped; the next call finds the token again, opens a session and
/// logs in again.
///
/// - Warning: The PIN is kept in memory for that re-login. It never appears in a description or an error.
public final class PKCS11Token: @unchecked Sendable {
    /// The module the token is reached through.
    public let module: PKCS11Module
    /// The token's label (`token=` in a PKCS#11 URI).
    public let label: String
    private let pin: [UInt8]
    private let connection = Locked(Connection())

    private struct Connection {
        var slot: CK_SLOT_ID?
        var moduleGeneration = -1
        /// Bumped on every reconnection: object handles found under an older epoch are stale.
        var epoch = 0
        var idle: [CK_SESSION_HANDLE] = []
    }

    /// Finds the token labelled `label` and logs in with `pin`.
    /// - Throws: ``PKCS11Error/Code/tokenNotFound`` (with the labels that exist), ``PKCS11Error/Code/pinIncorrect``.
    public init(module: PKCS11Module, label: String, pin: String) throws(PKCS11Error) {
        self.module = module
        self.label = label
        self.pin = Array(pin.utf8)
        try withSession { _, _ throws(PKCS11Error) in }
    }

    /// Runs `body` with a logged-in session no other thread uses meanwhile, and the connection epoch (object
    /// handles are valid within one epoch). A lost token drops every session before the error is rethrown.
    func withSession<R>(_ body: (CK_SESSION_HANDLE, Int) throws(PKCS11Error) -> R) throws(PKCS11Error) -> R {
        let (session, epoch) = try checkout()
        do {
            let result = try body(session, epoch)
            checkin(session, epoch: epoch)
            return result
        } catch {
            // A key that changed under its label means another token answers now: start over on the next call.
            if error.code == .tokenUnavailable || error.code == .keyChanged
                || PKCS11Call.tokenLost(CK_RV(error.returnValue))
            {
                drop(epoch: epoch)
            } else {
                checkin(session, epoch: epoch)
            }
            throw error
        }
    }

    /// The module's functions.
    var functions: CK_FUNCTION_LIST { module.functions.pointee }

    private func checkout() throws(PKCS11Error) -> (CK_SESSION_HANDLE, Int) {
        let generation = try module.ensureInitialized()
        let pooled = connection.withLock { state -> (CK_SESSION_HANDLE?, CK_SLOT_ID?, Int) in
            if state.moduleGeneration != generation {
                state.slot = nil
                state.idle = []
            }
            return (state.idle.popLast(), state.slot, state.epoch)
        }
        if let session = pooled.0 { return (session, pooled.2) }
        var slot = pooled.1
        var epoch = pooled.2
        if slot == nil {
            let found = try findSlot()
            epoch = connection.withLock { state in
                state.slot = found
                state.moduleGeneration = generation
                state.epoch += 1
                return state.epoch
            }
            slot = found
        }
        var session = CK_SESSION_HANDLE(0)
        let opened = functions.C_OpenSession(slot!, CK_FLAGS(CKF_SERIAL_SESSION | CKF_RW_SESSION), nil, nil, &session)
        if opened != CK_RV(CKR_OK) {
            drop(epoch: epoch)
            throw PKCS11Call.error(opened, "C_OpenSession on token \"\(label)\"")
        }
        let loggedIn = pin.withUnsafeBufferPointer { pin in
            functions.C_Login(
                session, CK_USER_TYPE(CKU_USER), UnsafeMutablePointer(mutating: pin.baseAddress), CK_ULONG(pin.count))
        }
        guard loggedIn == CK_RV(CKR_OK) || loggedIn == CK_RV(CKR_USER_ALREADY_LOGGED_IN) else {
            _ = functions.C_CloseSession(session)
            let error = PKCS11Call.error(loggedIn, "logging in to token \"\(label)\"")
            if error.code == .pinIncorrect {
                throw PKCS11Error(
                    .pinIncorrect,
                    "token \"\(label)\" refused the PIN (\(PKCS11Call.name(loggedIn))); check pin-source in the URI or PINSET_PKCS11_PIN",
                    returnValue: error.returnValue)
            }
            drop(epoch: epoch)
            throw error
        }
        return (session, epoch)
    }

    private func checkin(_ session: CK_SESSION_HANDLE, epoch: Int) {
        let kept = connection.withLock { state -> Bool in
            guard state.epoch == epoch, state.slot != nil else { return false }
            state.idle.append(session)
            return true
        }
        if !kept { _ = functions.C_CloseSession(session) }
    }

    /// Forgets every session of `epoch` (once, whichever thread sees the loss first) and closes them.
    private func drop(epoch: Int) {
        let slot = connection.withLock { state -> CK_SLOT_ID? in
            guard state.epoch == epoch, let slot = state.slot else { return nil }
            state.slot = nil
            state.idle = []
            return slot
        }
        if let slot { _ = functions.C_CloseAllSessions(slot) }
    }

    /// The slot holding the token labelled ``label``. When none does, the module is initialised again once (some
    /// modules, SoftHSM among them, only see a token that came back after `C_Initialize`) and asked again.
    private func findSlot() throws(PKCS11Error) -> CK_SLOT_ID {
        let generation = try module.ensureInitialized()
        if let slot = try? slots().first(where: { $0.label == label })?.slot { return slot }
        try module.reinitialize(after: generation)
        let present = try slots()
        if let slot = present.first(where: { $0.label == label })?.slot { return slot }
        let labels = present.filter { !$0.label.isEmpty }.map { "\"\($0.label)\"" }.joined(separator: ", ")
        throw PKCS11Error(
            .tokenNotFound,
            "no token labelled \"\(label)\" in \(module.path) (tokens present: \(labels.isEmpty ? "none" : labels)); check token= in the URI, or create the token (softhsm2-util --init-token)"
        )
    }

    /// Every slot with a token present, with the token's label.
    private func slots() throws(PKCS11Error) -> [(slot: CK_SLOT_ID, label: String)] {
        var count = CK_ULONG(0)
        try PKCS11Call.check(functions.C_GetSlotList(CK_BBOOL(1), nil, &count), "C_GetSlotList of \(module.path)")
        guard count > 0 else { return [] }
        precondition(count < 4096, "C_GetSlotList returned an absurd slot count")
        var slots = [CK_SLOT_ID](repeating: 0, count: Int(count))
        try PKCS11Call.check(functions.C_GetSlotList(CK_BBOOL(1), &slots, &count), "C_GetSlotList of \(module.path)")
        return slots.prefix(Int(count)).compactMap { slot in
            var info = CK_TOKEN_INFO()
            guard functions.C_GetTokenInfo(slot, &info) == CK_RV(CKR_OK) else { return nil }
            let label = withUnsafeBytes(of: &info.label) { bytes in
                String(decoding: bytes, as: UTF8.self).trimmingTrailingSpaces()
            }
            return (slot, label)
        }
    }
}

extension String {
    /// Without the blanks PKCS#11 pads fixed-size text fields with.
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\0" { text = text.dropLast() }
        return String(text)
    }
}
