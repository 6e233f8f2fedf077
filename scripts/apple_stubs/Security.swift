// A stand-in for the part of Apple's Security framework that PinSetClient's SecTrust adapter
// (Sources/PinSetClient/Apple/PinnedServerTrustEvaluator.swift) and examples/ use: the Swift signatures of the iOS
// 16 / macOS 13 SDKs as Apple documents them, written by hand. It exists only so that scripts/apple_stub_check.py
// can type-check that code on Linux; nothing here runs (every function traps). The CF types are their Foundation
// counterparts, which bridge from String, Data and Array with `as` on Linux as CF types do on Apple platforms.
import Foundation

public typealias OSStatus = Int32
public typealias CFTypeRef = AnyObject
public typealias CFString = NSString
public typealias CFData = NSData
public typealias CFArray = NSArray
public typealias CFError = NSError
public final class CFAllocator {}
public final class SecTrust {}
public final class SecCertificate {}
public final class SecPolicy {}

public let errSecSuccess: OSStatus = 0

public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy { fatalError("stub") }
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus { fatalError("stub") }
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    fatalError("stub")
}
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError("stub") }
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { fatalError("stub") }
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    fatalError("stub")
}
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray) -> OSStatus {
    fatalError("stub")
}
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    fatalError("stub")
}
