import Foundation
import Crypto

/// MD5, needed only for the GUID of extended XMP: Adobe's XMP specification names an extended packet by the
/// MD5 digest of its bytes, as 32 upper-case hex digits. The digest itself comes from swift-crypto; this only
/// spells it the way the specification asks.
enum MD5 {
    static func hex(_ message: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        let digest = Insecure.MD5.hash(data: message)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
