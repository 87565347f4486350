import DepthbookEngine
import DepthbookTestSupport
import Testing

@testable import DepthbookCodecs

@Suite(.timeLimit(.minutes(30)))
struct XMPTests {
    /// The same property spelled the ways RDF/XML allows reads the same.
    @Test func rdfSpellingsAgree() throws {
        let xmp = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:a="urn:a/" a:Attr="1.5" a:Ent="&lt;&amp;&#65;&#x42;">
            <a:Elem>2.5</a:Elem>
            <a:Seq><rdf:Seq><rdf:li>1</rdf:li><rdf:li> 2 </rdf:li></rdf:Seq></a:Seq>
            <a:Res rdf:parseType="Resource"><a:Inner>x</a:Inner></a:Res>
            <a:Desc><rdf:Description a:Inner="y"/></a:Desc>
            <a:Short a:Inner="z"/>
            <!-- a comment --><a:CData><![CDATA[<raw>]]></a:CData>
          </rdf:Description>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
        let doc = try XMPDocument(xmp)
        #expect(doc.double("urn:a/", "Attr") == 1.5)
        #expect(doc.text("urn:a/", "Ent") == "<&AB")
        #expect(doc.double("urn:a/", "Elem") == 2.5)
        #expect(doc.value("urn:a/", "Seq")?.doubles == [1, 2])
        #expect(doc.value("urn:a/", "Res")?.field("urn:a/", "Inner")?.text == "x")
        #expect(doc.value("urn:a/", "Desc")?.field("urn:a/", "Inner")?.text == "y")
        #expect(doc.value("urn:a/", "Short")?.field("urn:a/", "Inner")?.text == "z")
        #expect(doc.text("urn:a/", "CData") == "<raw>")
    }

    @Test(arguments: [
        "", "<x:xmpmeta", "<a><b></a></b>", "<a x=1/>", "<a>&bogus;</a>", "<p:a/>", "junk <a/>", "<a/>",
        String(repeating: "<a>", count: 1000) + String(repeating: "</a>", count: 1000),
    ])
    func malformedXMPIsRefused(_ text: String) {
        #expect(throws: PhotoError.self) { try XMPDocument(text) }
    }

    /// The Dynamic Depth sample XMP (exifr fixture): its directory and depth map parameters.
    @Test(.enabled(if: SharedPhotos.available))
    func dynamicDepthDirectoryFromFixture() throws {
        let text = String(decoding: try SharedPhotos.bytes("exifr__xmp-gcam-portrait.xml"), as: UTF8.self)
        let doc = try XMPDocument(text)
        #expect(doc.text(XMPNamespace.xmpNote, "HasExtendedXMP") == "979057752e0037ac7836c599dc5e004a")
        let items = try #require(try DynamicDepthReader.directory([doc]))
        #expect(items.map(\.uri) == ["primary_image", "android/original_image", "android/depthmap", "android/confidencemap"])
        #expect(items.map(\.length) == [0, 2_420_326, 135_047, 96_395])
        let ranges = try DynamicDepthReader.locate(items, fileSize: 3_000_000)
        #expect(ranges["android/confidencemap"] == (3_000_000 - 96_395)..<3_000_000)
        #expect(ranges["android/depthmap"] == (3_000_000 - 96_395 - 135_047)..<(3_000_000 - 96_395))
        #expect(throws: PhotoError.self) { try DynamicDepthReader.locate(items, fileSize: 1000) }
    }

    @Test func writerOutputParsesBack() throws {
        let props: [XMPProperty] = [
            .text(XMPNamespace.depthData, "Quality", "a<b & \"c\""),
            .numbers(XMPNamespace.depthData, "IntrinsicMatrix", [1, 0.1, 1e-7, 3032.59423828125]),
            XMPProperty(namespace: "urn:unknown/", name: "S", value: .structure([.text("urn:unknown/", "F", "v")])),
        ]
        let doc = try XMPDocument(XMPWriter.packet(props))
        #expect(doc.text(XMPNamespace.depthData, "Quality") == "a<b & \"c\"")
        #expect(doc.value(XMPNamespace.depthData, "IntrinsicMatrix")?.doubles == [1, 0.1, 1e-7, 3032.59423828125])
        #expect(doc.value("urn:unknown/", "S")?.field("urn:unknown/", "F")?.text == "v")
    }

    /// Apple writes simd matrices column by column: cx and cy come at indices 6 and 7.
    @Test func intrinsicsAreTransposedToRowMajor() {
        #expect(AppleDepthMetadata.rowMajor(columnMajor3x3: [10, 0, 0, 0, 11, 0, 5, 6, 1]) == [10, 0, 5, 0, 11, 6, 0, 0, 1])
        #expect(AppleDepthMetadata.rowMajor(columnMajor3x3: [10, 0, 5, 0, 11, 6, 0, 0, 1]) == [10, 0, 5, 0, 11, 6, 0, 0, 1])
    }

    /// mwg-rs areas are centre + size, normalised; sensor-oriented regions turn upright.
    @Test func faceRegionsToUprightPixels() throws {
        func doc(w: Int, h: Int) throws -> XMPDocument {
            try XMPDocument("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/"
              xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#" xmlns:stDim="http://ns.adobe.com/xap/1.0/sType/Dimensions#">
            <mwg-rs:Regions rdf:parseType="Resource">
              <mwg-rs:AppliedToDimensions stDim:w="\(w)" stDim:h="\(h)" stDim:unit="pixel"/>
              <mwg-rs:RegionList><rdf:Bag><rdf:li><rdf:Description mwg-rs:Type="Face">
                <mwg-rs:Area stArea:x="0.25" stArea:y="0.5" stArea:w="0.1" stArea:h="0.2" stArea:unit="normalized"/>
              </rdf:Description></rdf:li></rdf:Bag></mwg-rs:RegionList>
            </mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>
            """)
        }
        let upright = try FaceRegionsXMP.read(try doc(w: 200, h: 100), uprightWidth: 200, uprightHeight: 100, orientation: .up)
        let u = try #require(upright.first)
        #expect(upright.count == 1 && u.type == "Face")
        // Centre (0.25, 0.5) of 200×100 is (50, 50); size 0.1 × 0.2 is 20 × 20.
        #expect(abs(u.x - 40) < 1e-9 && abs(u.y - 40) < 1e-9 && abs(u.width - 20) < 1e-9 && abs(u.height - 20) < 1e-9)
        // Stated for the stored (landscape) frame of a photo stored with orientation 6 (turn right).
        let stored = try FaceRegionsXMP.read(try doc(w: 200, h: 100), uprightWidth: 100, uprightHeight: 200, orientation: .right)
        let f = try #require(stored.first)
        // Stored centre (0.25, 0.5) → upright (1 − 0.5, 0.25); sizes swap.
        #expect(abs(f.centerX - 50) < 1e-9 && abs(f.centerY - 50) < 1e-9)
        #expect(abs(f.width - 20) < 1e-9 && abs(f.height - 20) < 1e-9)
    }
}
