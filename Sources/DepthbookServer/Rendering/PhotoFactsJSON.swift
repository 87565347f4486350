import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine

/// `<photo facts>` of the protocol: what `depthbook inspect --json` prints (the codecs' `PhotoFacts`), plus
/// `"source"`, the reference the photo was opened by, `"references"`, the `photo.<plane>` references it can
/// render (`PhotoReferences.offered`: the page lists them, it does not work them out), and `"coming"`, the planes
/// being made for it in the background (`["personMatte"]` while the learned matte is made; left out when none).
public enum PhotoFactsJSON {
    public static func make(_ photo: Photo, source: PhotoReference, coming: [String] = []) -> JSONValue {
        guard case .object(var facts) = ReplyEncoder.jsonValue(PhotoFacts(photo)) else { return .null }
        facts["source"] = ReplyEncoder.jsonValue(source)
        facts["references"] = .array(PhotoReferences.offered(by: photo).map { .string($0) })
        if !coming.isEmpty { facts["coming"] = .array(coming.map { .string($0) }) }
        return .object(facts)
    }
}
