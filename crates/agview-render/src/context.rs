//! The GPU connection: instance, adapter, device and queue, and the errors of the renderer.

use thiserror::Error;

/// What went wrong while rendering.
#[derive(Debug, Error)]
pub enum RenderError {
    /// No adapter on any backend, not even a software one.
    #[error("no GPU adapter found (tried {tried}); {}", NO_ADAPTER_ADVICE)]
    NoAdapter { tried: String },
    #[error("could not open the GPU device on {adapter}: {message}")]
    Device { adapter: String, message: String },
    /// A wgpu validation or out-of-memory error while uploading or drawing.
    #[error("GPU error while {what}: {message}")]
    Gpu { what: &'static str, message: String },
    #[error("image size {width}x{height} is not supported (1..={max} pixels a side)")]
    Size { width: u32, height: u32, max: u32 },
    #[error("reading the rendered image back failed: {0}")]
    ReadBack(String),
}

/// What to do when no adapter is found, on this platform: the drivers on Windows and macOS
/// (which give every machine an adapter), a software rasterizer on Linux without a GPU.
pub const NO_ADAPTER_ADVICE: &str = if cfg!(target_os = "linux") {
    "on Linux without a GPU, `apt-get install mesa-vulkan-drivers` gives a software rasterizer (lavapipe)"
} else if cfg!(target_os = "macos") {
    "agview draws with Metal: update macOS, which updates the GPU drivers"
} else if cfg!(windows) {
    "agview draws with DirectX 12 or Vulkan: install or update the GPU drivers from the \
     maker of the graphics card (NVIDIA, AMD or Intel)"
} else {
    "install or update the GPU drivers (Vulkan, Metal, DirectX 12 or OpenGL)"
};

/// An open GPU device with the features the renderer asked for.
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.describe())
            .finish()
    }
}

/// Features used when the adapter has them: BC textures uploaded compressed, GPU timestamps
/// for the bench.
fn wanted_features() -> wgpu::Features {
    // INDIRECT_FIRST_INSTANCE: the GPU culling path draws each (mesh, LOD) list from its own
    // place in one buffer of visible instances (`cull.rs`).
    wgpu::Features::TEXTURE_COMPRESSION_BC
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::INDIRECT_FIRST_INSTANCE
}

impl GpuContext {
    /// Opens a device without a window, in the order of [`GpuContext::choose`].
    pub fn headless() -> Result<Self, RenderError> {
        Self::choose(|backends| Ok((make_instance(backends), ())), |_| None).map(|(ctx, ())| ctx)
    }

    /// The one order agview asks for an adapter in, with or without a window: the
    /// platform's backends (`platform_backends`), or only those `WGPU_BACKEND` names, each
    /// for a real adapter; then the same for a fallback (software) adapter. `open` makes the
    /// instance of each try and what goes with it (the window's surface, which the adapter
    /// must be able to present to: `surface` names it); what it fails with is said among the
    /// tries.
    pub fn choose<T>(
        mut open: impl FnMut(wgpu::Backends) -> Result<(wgpu::Instance, T), String>,
        surface: impl Fn(&T) -> Option<&wgpu::Surface<'static>>,
    ) -> Result<(Self, T), RenderError> {
        let order: Vec<wgpu::Backends> = match wgpu::Backends::from_env() {
            Some(b) => vec![b],
            None => platform_backends(),
        };
        let mut tried = Vec::new();
        for fallback in [false, true] {
            for &backends in &order {
                let what = format!(
                    "{}{}",
                    if fallback {
                        "a fallback adapter on "
                    } else {
                        ""
                    },
                    backend_names(backends)
                );
                let (instance, with) = match open(backends) {
                    Ok(x) => x,
                    Err(e) => {
                        tried.push(format!("{what} ({e})"));
                        continue;
                    }
                };
                let options = wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    force_fallback_adapter: fallback,
                    compatible_surface: surface(&with),
                    ..Default::default()
                };
                match pollster::block_on(instance.request_adapter(&options)) {
                    Ok(adapter) => return Ok((Self::from_adapter(instance, adapter)?, with)),
                    Err(_) => tried.push(what),
                }
            }
        }
        Err(RenderError::NoAdapter {
            tried: tried.join(", "),
        })
    }

    /// Opens the device of a chosen adapter.
    fn from_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Self, RenderError> {
        let features = adapter.features() & (wanted_features() | mapped_upload_feature(&adapter));
        let desc = wgpu::DeviceDescriptor {
            label: Some("agview"),
            required_features: features,
            required_limits: adapter.limits(),
            memory_hints: memory_hints(&adapter),
            ..Default::default()
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&desc)).map_err(|e| RenderError::Device {
                adapter: describe_adapter(&adapter),
                message: e.to_string(),
            })?;
        Ok(GpuContext {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// "llvmpipe (LLVM 15.0.6, 256 bits) on Vulkan (Cpu)".
    pub fn describe(&self) -> String {
        describe_adapter(&self.adapter)
    }

    /// Whether BC1/2/3 textures can be uploaded compressed.
    pub(crate) fn has_bc(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
    }

    /// Runs `f` inside a validation error scope and turns a captured error into
    /// [`RenderError::Gpu`].
    pub fn checked<T>(&self, what: &'static str, f: impl FnOnce() -> T) -> Result<T, RenderError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        match v.or(o) {
            Some(e) => Err(RenderError::Gpu {
                what,
                message: e.to_string(),
            }),
            None => Ok(value),
        }
    }
}

/// The backends tried in turn when `WGPU_BACKEND` is unset. Vulkan first, the backend the
/// golden images are drawn on, then DX12 on Windows, for drivers without Vulkan; on macOS
/// Metal alone, since wgpu is built without MoltenVK and ANGLE, its ways to Vulkan and GL
/// there. GL last elsewhere, for old or virtual GPUs.
fn platform_backends() -> Vec<wgpu::Backends> {
    use wgpu::Backends as B;
    if cfg!(target_vendor = "apple") {
        vec![B::METAL]
    } else if cfg!(windows) {
        vec![B::VULKAN, B::DX12, B::GL]
    } else {
        vec![B::VULKAN, B::GL]
    }
}

fn make_instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

fn describe_adapter(adapter: &wgpu::Adapter) -> String {
    let info = adapter.get_info();
    format!(
        "{} on {:?} ({:?})",
        info.name, info.backend, info.device_type
    )
}

fn backend_names(backends: wgpu::Backends) -> String {
    let names: Vec<&str> = [
        (wgpu::Backends::VULKAN, "Vulkan"),
        (wgpu::Backends::GL, "GL"),
        (wgpu::Backends::METAL, "Metal"),
        (wgpu::Backends::DX12, "DX12"),
        (wgpu::Backends::BROWSER_WEBGPU, "WebGPU"),
    ]
    .iter()
    .filter(|(b, _)| backends.contains(*b))
    .map(|(_, n)| *n)
    .collect();
    if names.is_empty() {
        "no backend".into()
    } else {
        names.join("+")
    }
}

/// How the device sub-allocates its memory. On a software rasterizer (lavapipe) every
/// buffer and texture, and every staging copy that fills one, is the process's own memory,
/// carved from blocks of 64–128 MB by default: a staging copy freed after its upload leaves
/// its pages resident in a block the scene's buffers still hold. Blocks of 4–32 MB
/// (`MemoryUsage`) are freed whole once emptied, so the staging copies go back to the
/// system. A real GPU keeps the default, made for speed.
fn memory_hints(adapter: &wgpu::Adapter) -> wgpu::MemoryHints {
    if adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        wgpu::MemoryHints::MemoryUsage
    } else {
        wgpu::MemoryHints::Performance
    }
}

/// On a software rasterizer, whose GPU memory is the process's own, the scene's buffers
/// are written where they lie: mapped at creation (`MAP_WRITE`, which
/// `MAPPABLE_PRIMARY_BUFFERS` allows on vertex, index and storage buffers) rather than
/// through a staging copy that the device then copies again ([`GpuContext::maps_uploads`]).
/// A real GPU keeps the staging copies: its own memory is faster to draw from.
fn mapped_upload_feature(adapter: &wgpu::Adapter) -> wgpu::Features {
    if adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        wgpu::Features::MAPPABLE_PRIMARY_BUFFERS
    } else {
        wgpu::Features::empty()
    }
}

impl GpuContext {
    /// Whether the scene's buffers are written mapped, without a staging copy (a software
    /// rasterizer that offers it: [`mapped_upload_feature`]).
    pub(crate) fn maps_uploads(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
    }

    /// `usage`, with `MAP_WRITE` where uploads are mapped ([`Self::maps_uploads`]): a buffer
    /// made with `create_buffer_init` is then written in place, not through a staging copy.
    pub(crate) fn upload_usage(&self, usage: wgpu::BufferUsages) -> wgpu::BufferUsages {
        if self.maps_uploads() {
            usage | wgpu::BufferUsages::MAP_WRITE
        } else {
            usage
        }
    }
}

/// Gives the system back the memory the allocators hold freed: mimalloc's (the `agview`
/// binary's Rust heap: an upload's meshes, built and freed part by part, stay resident
/// until its next purge, which may come after the first frame) and the C allocator's
/// (glibc's `malloc_trim`: a software rasterizer's threads allocate with it, for its
/// staging copies and shader compiles). Either would stay resident under the first
/// frame's own memory. Where mimalloc is not the global allocator, its own empty heap is
/// all it collects; where the C library is not glibc, only mimalloc's is given back.
pub fn release_freed_memory() {
    // SAFETY: a plain call into mimalloc; it frees nothing in use.
    unsafe { libmimalloc_sys::mi_collect(true) };
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: glibc's `malloc_trim` takes a byte count and only returns free pages of
        // its own heaps to the system; it touches no memory in use.
        unsafe {
            malloc_trim(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_adapter_error_names_backends_and_the_fix() {
        let e = RenderError::NoAdapter {
            tried: "Vulkan, GL, a fallback adapter on Vulkan+GL".into(),
        };
        let s = e.to_string();
        assert!(s.contains("Vulkan") && s.contains("GL"));
        assert!(s.ends_with(NO_ADAPTER_ADVICE), "{s}");
        if cfg!(windows) {
            assert!(s.contains("GPU drivers") && !s.contains("apt-get"), "{s}");
        }
        assert_eq!(
            backend_names(wgpu::Backends::VULKAN | wgpu::Backends::GL),
            "Vulkan+GL"
        );
    }
}
