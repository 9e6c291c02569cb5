//! The wgpu instance, adapter, device and queue.

use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("no graphics adapter: {0} (on Linux without a GPU, install Mesa's software Vulkan: apt-get install mesa-vulkan-drivers)")]
    NoAdapter(String),
    #[error("the graphics device could not be opened: {0}")]
    Device(String),
    #[error("cannot create a window surface: {0}")]
    Surface(String),
    #[error("reading back the frame failed: {0}")]
    Readback(String),
    #[error(transparent)]
    Atlas(#[from] super::atlas::AtlasError),
}

pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl Gpu {
    /// A device for offscreen rendering.
    pub fn headless() -> Result<Gpu, RenderError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        Self::with_instance(instance, None)
    }

    /// A device that can present to `surface_target`.
    pub fn for_window(
        display: Box<dyn wgpu::wgt::WgpuHasDisplayHandle>,
        window: Arc<winit::window::Window>,
    ) -> Result<(Gpu, wgpu::Surface<'static>), RenderError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(display));
        let surface = instance.create_surface(window).map_err(|e| RenderError::Surface(e.to_string()))?;
        let gpu = Self::with_instance(instance, Some(&surface))?;
        Ok((gpu, surface))
    }

    fn with_instance(instance: wgpu::Instance, surface: Option<&wgpu::Surface<'_>>) -> Result<Gpu, RenderError> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: surface,
            ..Default::default()
        }))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        // Chunk draws are multi-draws whose first instance picks the
        // chunk's origin; where the adapter lacks it, draws go one by one.
        let required_features = adapter.features() & wgpu::Features::INDIRECT_FIRST_INSTANCE;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("blockworld"),
            required_features,
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| RenderError::Device(e.to_string()))?;
        Ok(Gpu { instance, adapter, device, queue })
    }

    /// Whether chunk draws can be multi-draw-indirect: indirect draws run
    /// (not on WebGL2 and some GL ES), and honour a first instance. On
    /// Vulkan and DX12 a multi-draw is one driver command; Metal and GL run
    /// it as a loop of indirect draws inside wgpu, still one call here.
    pub fn multi_draw(&self) -> bool {
        self.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
            && self.adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
    }

    pub fn adapter_name(&self) -> String {
        let i = self.adapter.get_info();
        format!("{} ({:?})", i.name, i.backend)
    }

    /// Sends uploads made outside a frame to the device and frees the
    /// staging memory of those finished. Without it, uploads between frames
    /// (a headless load) stage every byte until the next frame's submit.
    pub fn flush_uploads(&self) {
        self.queue.submit([]);
        // A failed poll only delays freeing staging memory to the next one.
        let _ = self.device.poll(wgpu::PollType::Poll);
    }
}
