import DepthbookEngine

/// The scenes Depthbook ships as samples. Distances are metres; the person's face is the known subject depth.
enum SampleScenes {
    static let all: [SampleScene] = [portrait, portraitOutdoor, stillLife]

    /// Light from the upper left, in front of the scene.
    private static let keyLight = normalize(Vec3(-0.45, -0.6, -0.66))

    /// A front-camera (TrueDepth-like) indoor portrait: absolute disparity, every semantic matte.
    static let portrait = SampleScene(
        id: "portrait", title: "Portrait (indoor)",
        summary: "A person with glasses at 0.7 m, a ball at 1.1 m, books at 1.8 m, a vase at 2.5 m, a wall at 3.5 m.",
        width: 1512, height: 2016, focalPerLongSide: 1.05,
        person: PersonModel(
            headCenter: Vec3(0, -0.07, 0.79), headRadii: Vec3(0.075, 0.1, 0.09),
            skinTone: Vec3(0.87, 0.68, 0.55), hairColor: Vec3(0.22, 0.14, 0.09),
            shirtColor: Vec3(0.2, 0.35, 0.6), shirtStripeColor: Vec3(0.26, 0.43, 0.7),
            lipColor: Vec3(0.72, 0.33, 0.35), irisColor: Vec3(0.35, 0.22, 0.12),
            glassesFrame: Vec3(0.08, 0.08, 0.1), seed: 11).withStrands(60),
        props: [
            SceneProp(name: "ball", shape: .ellipsoid(center: Vec3(-0.3, 0.2, 1.2), radii: Vec3(0.1, 0.1, 0.1)),
                      color: Vec3(0.8, 0.22, 0.15), pattern: .grain(amount: 0.1)),
            SceneProp(name: "books", shape: .box(min: Vec3(0.32, 0.05, 1.8), max: Vec3(0.62, 0.9, 2.1)),
                      color: Vec3(0.3, 0.5, 0.35), pattern: .stripes(period: 0.06, other: Vec3(0.75, 0.7, 0.45))),
            SceneProp(name: "vase", shape: .cylinder(centerX: -0.6, centerZ: 2.62, radius: 0.12, top: 0.25, bottom: 0.9),
                      color: Vec3(0.9, 0.9, 0.92), pattern: .grain(amount: 0.03), holes: .specular(threshold: 0.9)),
            SceneProp(name: "picture", shape: .box(min: Vec3(-0.95, -0.75, 3.47), max: Vec3(-0.6, -0.45, 3.5)),
                      color: Vec3(0.1, 0.1, 0.12), pattern: .grain(amount: 0.2), holes: .everywhere),
            SceneProp(name: "floor", shape: .floor(y: 0.9), color: Vec3(0.55, 0.4, 0.28),
                      pattern: .checker(period: 0.3, other: Vec3(0.5, 0.36, 0.25))),
            SceneProp(name: "wall", shape: .wall(z: 3.5), color: Vec3(0.78, 0.76, 0.7), pattern: .grain(amount: 0.08)),
        ],
        light: keyLight, accuracy: .absolute, disparityScale: 1,
        dropouts: [(0.08, 0.93, 0.02), (0.93, 0.1, 0.015)],
        mattes: [.portraitEffectsMatte, .skin, .hair, .teeth, .glasses], seed: 1)

    /// A rear-camera outdoor portrait: relative disparity, a sky matte, no glasses matte.
    static let portraitOutdoor = SampleScene(
        id: "portrait-outdoor", title: "Portrait (outdoor)",
        summary: "A person at 1.5 m in a park: a bench at 3 m, trees at 5.8 and 9.4 m, sky. Relative disparity; no glasses matte.",
        width: 1512, height: 2016, focalPerLongSide: 1.2,
        person: PersonModel(
            headCenter: Vec3(0.05, -0.12, 1.59), headRadii: Vec3(0.078, 0.105, 0.09),
            skinTone: Vec3(0.62, 0.45, 0.34), hairColor: Vec3(0.78, 0.62, 0.36),
            shirtColor: Vec3(0.7, 0.18, 0.2), shirtStripeColor: Vec3(0.62, 0.15, 0.18),
            lipColor: Vec3(0.55, 0.25, 0.25), irisColor: Vec3(0.2, 0.3, 0.45),
            glassesFrame: nil, hairLength: 0.85, seed: 12).withStrands(50),
        props: [
            SceneProp(name: "bench", shape: .box(min: Vec3(0.3, 0.4, 3.0), max: Vec3(1.4, 0.9, 3.4)),
                      color: Vec3(0.45, 0.3, 0.2), pattern: .stripes(period: 0.08, other: Vec3(0.38, 0.25, 0.16))),
            SceneProp(name: "near tree", shape: .ellipsoid(center: Vec3(-1.3, -1.4, 7.0), radii: Vec3(1.3, 1.5, 1.2)),
                      color: Vec3(0.2, 0.42, 0.15), pattern: .foliage),
            SceneProp(name: "near trunk", shape: .cylinder(centerX: -1.3, centerZ: 7.0, radius: 0.22, top: -0.5, bottom: 1.5),
                      color: Vec3(0.35, 0.25, 0.18), pattern: .grain(amount: 0.15)),
            SceneProp(name: "far tree", shape: .ellipsoid(center: Vec3(2.0, -2.2, 11.0), radii: Vec3(1.8, 2.0, 1.6)),
                      color: Vec3(0.25, 0.45, 0.2), pattern: .foliage),
            SceneProp(name: "far trunk", shape: .cylinder(centerX: 2.0, centerZ: 11.0, radius: 0.3, top: -0.6, bottom: 1.5),
                      color: Vec3(0.35, 0.25, 0.18), pattern: .grain(amount: 0.15)),
            SceneProp(name: "lawn", shape: .floor(y: 1.5), color: Vec3(0.3, 0.5, 0.2), pattern: .foliage),
            SceneProp(name: "sky", shape: .wall(z: 200), color: Vec3(0.78, 0.86, 0.95), pattern: .sky(zenith: Vec3(0.3, 0.5, 0.85)),
                      label: .sky, unlit: true),
        ],
        light: normalize(Vec3(0.35, -0.7, -0.6)), accuracy: .relative, disparityScale: 2.5,
        dropouts: [(0.2, 0.06, 0.02), (0.85, 0.5, 0.012)],
        mattes: [.portraitEffectsMatte, .skin, .hair, .teeth, .sky], seed: 2)

    /// A table top with no person: no mattes, no face, relative disparity.
    static let stillLife = SampleScene(
        id: "still-life", title: "Still life",
        summary: "No person: an orange at 0.6 m, a box at 0.95 m, a mug at 1.4 m, a ball at 2.1 m, a wall at 3 m.",
        width: 2016, height: 1512, focalPerLongSide: 0.78,
        person: nil,
        props: [
            SceneProp(name: "orange", shape: .ellipsoid(center: Vec3(-0.08, 0.2, 0.68), radii: Vec3(0.08, 0.08, 0.08)),
                      color: Vec3(0.95, 0.55, 0.12), pattern: .grain(amount: 0.12)),
            SceneProp(name: "box", shape: .box(min: Vec3(0.12, 0.05, 0.95), max: Vec3(0.4, 0.3, 1.2)),
                      color: Vec3(0.25, 0.35, 0.7), pattern: .stripes(period: 0.05, other: Vec3(0.85, 0.85, 0.8))),
            SceneProp(name: "mug", shape: .cylinder(centerX: -0.45, centerZ: 1.45, radius: 0.05, top: 0.18, bottom: 0.3),
                      color: Vec3(0.92, 0.9, 0.85), pattern: .grain(amount: 0.03), holes: .specular(threshold: 0.85)),
            SceneProp(name: "ball", shape: .ellipsoid(center: Vec3(0.7, 0.1, 2.3), radii: Vec3(0.2, 0.2, 0.2)),
                      color: Vec3(0.3, 0.7, 0.4), pattern: .grain(amount: 0.1)),
            SceneProp(name: "table", shape: .floor(y: 0.3), color: Vec3(0.6, 0.45, 0.3),
                      pattern: .checker(period: 0.12, other: Vec3(0.55, 0.41, 0.27))),
            SceneProp(name: "wall", shape: .wall(z: 3.0), color: Vec3(0.82, 0.8, 0.72),
                      pattern: .stripes(period: 0.15, other: Vec3(0.74, 0.72, 0.66))),
        ],
        light: keyLight, accuracy: .relative, disparityScale: 1.8,
        dropouts: [(0.5, 0.05, 0.015)],
        mattes: [], seed: 3)
}
