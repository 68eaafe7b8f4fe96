//! Light points: every OBJ8 light (`LIGHT_NAMED`, `LIGHT_PARAM`, `LIGHT_CUSTOM`) of every
//! placed object, drawn as glowing billboards at night by `lights.wgsl`.
//!
//! One instance per (object instance, light), made on the CPU at upload from the objects'
//! own instance records ([`ObjectSet::instances`]) and the meshes' lights
//! ([`crate::art::MeshArt::lights`]), and drawn in one instanced draw per frame. Lights are
//! not culled: the vertex shader tests each one's LOD range and density with the rules the
//! objects' `place_vertex` uses, so a light shows exactly where its object's LOD does, on
//! every culling path.

use bytemuck::{Pod, Zeroable};

use super::objects::{lod_far, InstanceGpu, ObjectSet};
use crate::art::ArtSet;

/// One light of one placed object as uploaded (80 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct LightInstanceGpu {
    /// The object instance's `pos_heading` and `ground_mode` ([`InstanceGpu`]).
    pub pos_heading: [f32; 4],
    pub ground_mode: [f32; 4],
    /// The light's position in the object (OBJ8 axes, m) and its radius (m).
    pub local_size: [f32; 4],
    /// Linear RGB, and the intensity in candela times the dimmer.
    pub color: [f32; 4],
    /// The LOD range it was listed in: near, far (m); unused, unused.
    pub lod: [f32; 4],
}

/// The per-instance vertex layout of `lights.wgsl`.
pub(crate) const LIGHT_ATTRIBUTES: [wgpu::VertexAttribute; 5] = wgpu::vertex_attr_array![
    0 => Float32x4, 1 => Float32x4, 2 => Float32x4, 3 => Float32x4, 4 => Float32x4
];

/// The light instances of a scene as uploaded, and for each the object instance it
/// belongs to (its place in [`ObjectSet::instances`]), so a new terrain can move them.
#[derive(Debug, Default)]
pub(crate) struct LightSet {
    pub list: Vec<LightInstanceGpu>,
    owners: Vec<u32>,
}

impl LightSet {
    /// Copies each owner's ground height again (after [`ObjectSet::reground`]).
    pub fn reground(&mut self, set: &ObjectSet) {
        let (objects, _) = set.instances();
        for (l, &k) in self.list.iter_mut().zip(&self.owners) {
            if let Some(o) = objects.get(k as usize) {
                l.ground_mode = o.ground_mode;
            }
        }
    }
}

/// Every light of every placed object: for each mesh with lights, each of its instances
/// (in the order of [`ObjectSet::instances`]) with each light.
pub(crate) fn build(set: &ObjectSet, art: &ArtSet) -> LightSet {
    let (list, ranges) = set.instances();
    let mut out = LightSet::default();
    for ((mesh, batch), range) in art.meshes.iter().zip(&set.batches).zip(ranges) {
        if batch.placeholder || mesh.lights.is_empty() {
            continue;
        }
        let lights: Vec<_> = mesh
            .lights
            .iter()
            .filter(|l| {
                l.pos.iter().chain(&l.color).all(|v| v.is_finite())
                    && l.size.is_finite()
                    && l.size > 0.0
                    && l.candela.is_finite()
            })
            .collect();
        let instances: &[InstanceGpu] = &list[range.start as usize..range.end as usize];
        out.list.reserve(instances.len() * lights.len());
        for (k, inst) in range.clone().zip(instances) {
            for l in &lights {
                let near = l.near.max(0.0);
                let far = lod_far(near, l.far, batch.bounds);
                out.owners.push(k);
                out.list.push(LightInstanceGpu {
                    pos_heading: inst.pos_heading,
                    ground_mode: inst.ground_mode,
                    local_size: [l.pos[0], l.pos[1], l.pos[2], l.size],
                    color: [l.color[0], l.color[1], l.color[2], l.intensity()],
                    lod: [near, far, 0.0, 0.0],
                });
            }
        }
    }
    out
}

/// Additive: a light adds its glow to what is behind it; the target's alpha is kept.
pub(crate) const ADDITIVE: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::Zero,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::art::{LightArt, MeshArt, MeshLod, MeshVertex};
    use crate::objects::INFINITE_LOD;
    use crate::scene::{ObjectInstance, Scene};
    use crate::terrain::Terrain;

    fn lamp(lights: Vec<LightArt>) -> MeshArt {
        let v = |x: f32| MeshVertex {
            pos: [x, 0.0, 0.0],
            normal: [0.0, 1.0, 0.0],
            uv: [0.0, 0.0],
        };
        MeshArt {
            name: "lamp.obj".into(),
            vertices: vec![v(0.0), v(1.0), v(2.0)],
            indices: vec![0, 1, 2],
            lods: vec![MeshLod {
                near: 0.0,
                far: 1000.0,
                first_index: 0,
                index_count: 3,
                material: Default::default(),
                shading: Default::default(),
            }],
            lights,
            ..MeshArt::default()
        }
    }

    #[test]
    fn one_instance_per_object_and_light_with_its_lod_and_levels() {
        let light = |x: f32, near: f32, far: f32| LightArt {
            pos: [x, 6.0, -1.5],
            near,
            far,
            color: [1.0, 0.6, 0.3, 1.0],
            size: 1.0,
            candela: 750.0,
        };
        let art = ArtSet {
            meshes: vec![
                lamp(vec![light(0.0, 0.0, 1000.0), light(1.0, 1000.0, 0.0)]),
                lamp(vec![]),
            ],
            ..ArtSet::default()
        };
        let object = |index: u32, show: [u8; 2]| ObjectInstance {
            index,
            show,
            thin: 0.25,
            heading: 90.0,
            ..ObjectInstance::default()
        };
        let scene = Scene {
            objects: vec![object(0, [1, 1]), object(1, [1, 1]), object(0, [2, 5])],
            ..Scene::default()
        };
        let set = ObjectSet::build(&scene, &art, &Terrain::flat(100.0));
        let lights = build(&set, &art).list;
        assert_eq!(
            lights.len(),
            4,
            "two lamps × two lights; the plain mesh none"
        );
        let (list, _) = set.instances();
        // Each copies its object's record: the shader's LOD and density tests see the same
        // numbers as `place_vertex` does for the object.
        assert_eq!(lights[2].pos_heading, list[1].pos_heading);
        assert_eq!(lights[2].ground_mode, list[1].ground_mode);
        assert_eq!(lights[0].lod[..2], [0.0, 1000.0]);
        assert_eq!(
            lights[1].lod[..2],
            [1000.0, INFINITE_LOD],
            "far 0: no limit"
        );
        assert_eq!(lights[1].local_size, [1.0, 6.0, -1.5, 1.0]);
        assert_eq!(std::mem::size_of::<LightInstanceGpu>(), 80);
    }
}
