import CPKCS11
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PKCS#11 module (a shared library such as SoftHSM's `libsofthsm2.so`), loaded with `dlopen` and initialised
/// for use from many threads (`CKF_OS_LOCKING_OK`).
///
/// A module is loaded once per path and stays loaded for the life of the process (``load(path:)`` returns the
/// same object): PKCS#11 allows one `C_Initialize` per process, shared by every token and key.
public final class PKCS11Module: @unchecked Sendable {
    /// The path it was loaded from.
    public let path: String
    /// The module's function list; valid while the process runs (the library is never unloaded).
    let functions: UnsafeMutablePointer<CK_FUNCTION_LIST>
    /// The generation (bumped by ``reinitialize(after:)``: every session and object handle of an older
    /// generation is gone) and whether `C_Initialize` succeeded (SoftHSM fails it while its token folder is gone).
    private let state = Locked((generation: 0, initialized: false))

    private static let loaded = Locked([String: PKCS11Module]())

    private init(path: String, functions: UnsafeMutablePointer<CK_FUNCTION_LIST>) {
        self.path = path
        self.functions = functions
    }

    /// The module at `path`, loaded and initialised on first use.
    /// - Throws: ``PKCS11Error/Code/moduleNotLoadable`` when the file cannot be loaded or is not a PKCS#11 module.
    public static func load(path: String) throws(PKCS11Error) -> PKCS11Module {
        if let module = loaded.withLock({ $0[path] }) { return module }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            throw PKCS11Error(
                .moduleNotLoadable,
                "cannot load the PKCS#11 module \(path) (\(reason)); give the module's path with --pkcs11-module or PINSET_PKCS11_MODULE, e.g. /usr/lib/softhsm/libsofthsm2.so"
            )
        }
        guard let symbol = dlsym(handle, "C_GetFunctionList") else {
            throw PKCS11Error(.moduleNotLoadable, "\(path) is not a PKCS#11 module: it has no C_GetFunctionList")
        }
        typealias GetFunctionList =
            @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CK_FUNCTION_LIST>?>?)
            -> CK_RV
        let getFunctionList = unsafeBitCast(symbol, to: GetFunctionList.self)
        var list: UnsafeMutablePointer<CK_FUNCTION_LIST>?
        try PKCS11Call.check(getFunctionList(&list), "C_GetFunctionList of \(path)")
        guard let list else {
            throw PKCS11Error(.moduleNotLoadable, "\(path) returned no PKCS#11 function list")
        }
        let module = PKCS11Module(path: path, functions: list)
        do throws(PKCS11Error) {
            _ = try module.ensureInitialized()
        } catch {
            throw PKCS11Error(
                .moduleNotLoadable,
                "\(error.detail); check the module's configuration (SoftHSM: SOFTHSM2_CONF and its directories.tokendir)",
                returnValue: error.returnValue)
        }
        return loaded.withLock { modules in
            if let first = modules[path] { return first }
            modules[path] = module
            return module
        }
    }

    /// Initialises the module if it is not (first use, or a `C_Initialize` that failed before) and returns the
    /// current generation.
    func ensureInitialized() throws(PKCS11Error) -> Int {
        let result = state.withLock { state -> Result<Int, PKCS11Error> in
            if !state.initialized {
                var arguments = CK_C_INITIALIZE_ARGS()
                arguments.flags = CK_FLAGS(CKF_OS_LOCKING_OK)
                let value = withUnsafeMutablePointer(to: &arguments) { functions.pointee.C_Initialize($0) }
                guard value == CK_RV(CKR_OK) || value == CK_RV(CKR_CRYPTOKI_ALREADY_INITIALIZED) else {
                    let error = PKCS11Call.error(value, "C_Initialize of \(path)")
                    return .failure(PKCS11Error(.tokenUnavailable, error.detail, returnValue: error.returnValue))
                }
                state.initialized = true
            }
            return .success(state.generation)
        }
        return try result.get()
    }

    /// `C_Finalize` then `C_Initialize`: the last resort after a token reset, when the module does not see the
    /// token again otherwise. Every session and handle of every token of this module is gone afterwards.
    /// Only finalises if no other thread did since `seenGeneration`.
    func reinitialize(after seenGeneration: Int) throws(PKCS11Error) {
        state.withLock { state in
            guard state.generation == seenGeneration, state.initialized else { return }
            state.generation += 1
            state.initialized = false
            _ = functions.pointee.C_Finalize(nil)
        }
        _ = try ensureInitialized()
    }
}
