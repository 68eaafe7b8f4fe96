//! The glTF an export builds, in memory: indices into its own lists, as glTF's JSON has
//! them. [`crate::write`] turns it into bytes.

/// A whole glTF scene: one scene whose root nodes are `roots`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub meshes: Vec<Mesh>,
    pub materials: Vec<PbrMaterial>,
    pub images: Vec<Image>,
    pub nodes: Vec<Node>,
    pub roots: Vec<usize>,
    /// `KHR_lights_punctual` point lights, referenced by [`Node::light`].
    pub lights: Vec<PointLight>,
    /// The asset's `extras`: the geographic origin and agview's version, at least.
    pub extras: serde_json::Value,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    pub name: String,
    pub primitives: Vec<Primitive>,
}

/// Triangles with one material. `normals` and `uvs` are empty or as long as `positions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitive {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
    /// Into [`Document::materials`]; `None`: glTF's default material.
    pub material: Option<usize>,
}

/// Per-instance transforms (`EXT_mesh_gpu_instancing`), all three as long as each other.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Instances {
    pub translation: Vec<[f32; 3]>,
    /// Quaternions x, y, z, w.
    pub rotation: Vec<[f32; 4]>,
    pub scale: Vec<[f32; 3]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    pub mesh: Option<usize>,
    pub translation: [f32; 3],
    /// x, y, z, w.
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    pub children: Vec<usize>,
    /// The node's mesh drawn once per instance (`EXT_mesh_gpu_instancing`).
    pub instances: Option<Instances>,
    /// Into [`Document::lights`].
    pub light: Option<usize>,
    pub extras: Option<serde_json::Value>,
}

impl Default for Node {
    fn default() -> Self {
        Node {
            name: String::new(),
            mesh: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            children: Vec::new(),
            instances: None,
            light: None,
            extras: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AlphaMode {
    #[default]
    Opaque,
    /// Cut out below the cutoff.
    Mask(f32),
    Blend,
}

/// A texture use: the image, and which UV set (always 0 here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureUse {
    /// Into [`Document::images`].
    pub image: usize,
}

/// glTF's metallic-roughness material.
#[derive(Debug, Clone, PartialEq)]
pub struct PbrMaterial {
    pub name: String,
    pub base_color_factor: [f32; 4],
    pub base_color: Option<TextureUse>,
    pub metallic_factor: f32,
    pub roughness_factor: f32,
    /// Roughness in G, metalness in B (glTF's packing).
    pub metallic_roughness: Option<TextureUse>,
    pub normal: Option<TextureUse>,
    pub normal_scale: f32,
    pub emissive: Option<TextureUse>,
    pub emissive_factor: [f32; 3],
    /// `KHR_materials_emissive_strength`, when above 1.
    pub emissive_strength: Option<f32>,
    pub alpha: AlphaMode,
    pub double_sided: bool,
    pub extras: Option<serde_json::Value>,
}

impl Default for PbrMaterial {
    fn default() -> Self {
        PbrMaterial {
            name: String::new(),
            base_color_factor: [1.0; 4],
            base_color: None,
            metallic_factor: 0.0,
            roughness_factor: 1.0,
            metallic_roughness: None,
            normal: None,
            normal_scale: 1.0,
            emissive: None,
            emissive_factor: [0.0; 3],
            emissive_strength: None,
            alpha: AlphaMode::Opaque,
            double_sided: false,
            extras: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mime {
    Png,
    Jpeg,
}

/// An encoded image.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub name: String,
    pub mime: Mime,
    pub bytes: Vec<u8>,
}

/// A `KHR_lights_punctual` point light.
#[derive(Debug, Clone, PartialEq)]
pub struct PointLight {
    pub name: String,
    /// Linear RGB, 0..1.
    pub color: [f32; 3],
    /// Candela.
    pub intensity: f32,
    pub range: Option<f32>,
}
