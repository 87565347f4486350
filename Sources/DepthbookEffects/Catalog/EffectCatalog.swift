/// Every effect a notebook step may name, in the order the page lists them: the building blocks of the
/// demos first, then the named recipes of the talks.
enum EffectCatalog {
    static let effects: [any Effect.Type] = [
        // Building blocks, one cell each, as the notebooks walk through them.
        ResizeEffect.self, ThresholdEffect.self, ClosingEffect.self, FeatherEffect.self, MaskGammaEffect.self,
        ApplyMaskEffect.self, NoirEffect.self, ExposureEffect.self, ColorControlsEffect.self, VibranceEffect.self,
        DiscBlurEffect.self, GaussianBlurEffect.self, GammaEffect.self, MaximumComponentEffect.self,
        BlendWithMaskEffect.self, MatteForegroundEffect.self, FittedMatteEffect.self, BackgroundImageEffect.self, FillBehindSubjectEffect.self,
        // The talks' effects as named recipes.
        DepthThresholdEffect.self, DepthThresholdNoirEffect.self, MatteSeparationEffect.self,
        ScaleSubjectEffect.self, ScaledMatteEffect.self, BigHeadEffect.self, MarchingEffect.self, MarchingCoverageEffect.self,
        MakeupEffect.self, HairColorEffect.self, TeethWhiteningEffect.self, GlassesTintEffect.self,
        FaceDepthMaskEffect.self, BackdropEffect.self,
        // Depth as a third dimension (2017 editing and capture talks, 2018 point clouds).
        TapBlendMaskEffect.self, BackgroundEffect.self, DarkenByDisparityEffect.self, DepthOfFieldEffect.self,
        DollyZoomEffect.self, PointCloudEffect.self, WiggleEffect.self, LensCorrectionEffect.self,
        DepthUpsamplingEffect.self, ZoomCropEffect.self, HoleFillEffect.self,
    ]

    private static let byID: [String: any Effect.Type] = Dictionary(
        effects.map { ($0.description.id, $0) }, uniquingKeysWith: { first, _ in first })

    static func effect(_ id: String) -> (any Effect.Type)? { byID[id] }

    static var descriptions: [EffectDescription] { effects.map { $0.description } }
}

extension EffectCatalog {
    /// The catalog as a Markdown reference: one section per effect with its inputs and parameter table.
    /// `docs/effects.md` is this text (a test keeps the two in step).
    static var markdown: String {
        var lines = [
            "# Effects",
            "",
            "Every effect a notebook step can name, with its inputs and parameters (generated from the catalog in",
            "`Sources/DepthbookEffects`; the studio's `effects` request returns the same table as JSON).",
            "Sizes marked px are in pixels of the full-resolution image, whatever plane the step acts on.",
            "",
        ]
        for e in descriptions {
            lines.append("## `\(e.id)`: \(e.title)")
            lines.append("")
            lines.append("\(e.summary) Output: \(e.output.rawValue).")
            lines.append("")
            let inputs = e.inputs.map { "`\($0.name)` (\($0.kind.rawValue)\($0.optional ? ", optional" : ""))" }
            lines.append("Inputs: " + (inputs.isEmpty ? "none." : inputs.joined(separator: ", ") + "."))
            lines.append("")
            if e.parameters.isEmpty { continue }
            lines.append("| name | label | range | default | unit | what it does |")
            lines.append("|---|---|---|---|---|---|")
            for p in e.parameters {
                let range: String
                switch p.kind {
                case .number: range = "\(format(p.min ?? 0))...\(format(p.max ?? 0))"
                case .choice: range = p.choices.joined(separator: ", ")
                case .bool: range = "true, false"
                case .point: range = "[x, y] in 0...1"
                case .upload: range = "an upload id, or empty"
                }
                let value: String
                switch p.defaultValue {
                case .number(let n): value = format(n)
                case .choice(let c): value = c.isEmpty ? "(none)" : c
                case .bool(let b): value = "\(b)"
                case .point(let x, let y): value = "[\(format(x)), \(format(y))]"
                }
                lines.append("| `\(p.name)` | \(p.label) | \(range) | \(value) | \(p.unit) | \(p.doc) |")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v)
    }
}
