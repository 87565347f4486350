import DepthbookCodecs
import DepthbookEffects
import DepthbookEngine

/// `<photo facts>` of the protocol: what `depthbook inspect --json` prints (the codecs' `PhotoFacts`), plus
/// `"source"`, the reference the photo was opened by.
public enum PhotoFactsJSON {
    public static func make(_ photo: Photo, source: PhotoReference) -> JSONValue {
        guard case .object(var facts) = ReplyEncoder.jsonValue(PhotoFacts(photo)) else { return .null }
        facts["source"] = ReplyEncoder.jsonValue(source)
        return .object(facts)
    }
}
