import Foundation
import Crypto

/// SHA-256 names uploads, saved notebooks and static-file ETags by their content. The digest comes from
/// swift-crypto; this keeps the store's one spelling of it: lowercase hex.
public enum SHA256 {
    /// The lowercase hex digest of `bytes`.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        let digest = Crypto.SHA256.hash(data: Array(bytes))
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
