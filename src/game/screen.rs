//! The window's side of the game: the surface frames are presented to, the
//! world renderer and the overlay drawn into it, and the cursor grab.

use crate::render::gpu::Gpu;
use crate::render::offscreen::Readback;
use crate::render::overlay::Overlay;
use crate::render::world_renderer::WorldRenderer;
use anyhow::{Context, Result};
use std::sync::Arc;
use winit::event_loop::ActiveEventLoop;
use winit::window::{CursorGrabMode, Fullscreen, Window};

pub struct Screen {
    pub window: Arc<Window>,
    pub gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    pub renderer: WorldRenderer,
    pub overlay: Overlay,
    /// The cursor is held for mouse look (and hidden).
    grabbed: bool,
    /// The grab confines the cursor instead of locking it (X11).
    confined: bool,
}

impl Screen {
    /// A window of `size` pixels (or borderless full screen) and everything
    /// drawn into it. The cursor starts free.
    pub fn open(event_loop: &ActiveEventLoop, size: (u32, u32), fullscreen: bool) -> Result<Screen> {
        let attrs = Window::default_attributes()
            .with_title("blockworld")
            .with_inner_size(winit::dpi::PhysicalSize::new(size.0, size.1))
            .with_fullscreen(fullscreen.then_some(Fullscreen::Borderless(None)));
        let window = Arc::new(event_loop.create_window(attrs).context("cannot open a window")?);
        let (gpu, surface) = Gpu::for_window(Box::new(event_loop.owned_display_handle()), window.clone())?;
        let inner = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, inner.width.max(1), inner.height.max(1))
            .context("the window surface is not supported by the graphics adapter")?;
        let caps = surface.get_capabilities(&gpu.adapter);
        if let Some(f) = caps.formats.iter().find(|f| f.is_srgb()) {
            config.format = *f;
        }
        config.present_mode = wgpu::PresentMode::AutoVsync;
        // Screenshots (F2) copy the frame out of the surface, where the driver allows it.
        if caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        }
        surface.configure(&gpu.device, &config);
        let renderer = WorldRenderer::new(&gpu, config.format)?;
        let overlay = Overlay::new(&window, &gpu, config.format);
        Ok(Screen { window, gpu, surface, config, renderer, overlay, grabbed: false, confined: false })
    }

    pub fn grabbed(&self) -> bool {
        self.grabbed
    }

    /// Holds the cursor for mouse look, or frees it for the menus. A lock is
    /// asked for first; where only confining works (X11), the cursor is
    /// kept in the middle instead ([`Self::recentre_cursor`]).
    pub fn grab(&mut self, on: bool) {
        self.grabbed = on;
        self.confined = false;
        if on {
            let ok = match self.window.set_cursor_grab(CursorGrabMode::Locked) {
                Ok(()) => Ok(()),
                Err(_) => self.window.set_cursor_grab(CursorGrabMode::Confined).map(|()| self.confined = true),
            };
            if let Err(e) = ok {
                eprintln!("blockworld: cursor grab unavailable ({e}); mouse look still works");
            }
        } else {
            let _ = self.window.set_cursor_grab(CursorGrabMode::None);
        }
        self.window.set_cursor_visible(!on);
    }

    /// A confined (not locked) cursor stops at the window's edge, and with it
    /// the motion: keep it in the middle, as games on X11 do.
    pub fn recentre_cursor(&self) {
        if self.grabbed && self.confined {
            let s = self.window.inner_size();
            let _ = self.window.set_cursor_position(winit::dpi::PhysicalPosition::new(s.width / 2, s.height / 2));
        }
    }

    pub fn set_fullscreen(&self, on: bool) {
        self.window.set_fullscreen(on.then_some(Fullscreen::Borderless(None)));
    }

    pub fn resize(&mut self, w: u32, h: u32) {
        if w > 0 && h > 0 {
            self.config.width = w;
            self.config.height = h;
            self.surface.configure(&self.gpu.device, &self.config);
        }
    }

    /// Width and height of the surface in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// The texture to draw this frame into; `None` skips the frame (the
    /// surface is reconfigured first when it went out of date).
    pub fn next_frame(&mut self) -> Option<wgpu::SurfaceTexture> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) | wgpu::CurrentSurfaceTexture::Suboptimal(f) => Some(f),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.gpu.device, &self.config);
                None
            }
            _ => None,
        }
    }

    /// Records a copy of the frame, as drawn so far, for a screenshot; read
    /// it after [`Self::present`]. An error says why the surface cannot be
    /// copied.
    pub fn capture(
        &self,
        frame: &wgpu::SurfaceTexture,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<Readback, String> {
        if !self.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
            return Err("this graphics driver does not let the window's frames be copied".into());
        }
        if !matches!(
            self.config.format,
            wgpu::TextureFormat::Bgra8UnormSrgb
                | wgpu::TextureFormat::Bgra8Unorm
                | wgpu::TextureFormat::Rgba8UnormSrgb
                | wgpu::TextureFormat::Rgba8Unorm
        ) {
            return Err(format!("the window's pixel format {:?} cannot be saved as a PNG", self.config.format));
        }
        let readback = Readback::for_surface(&self.gpu, self.size(), self.config.format);
        readback.copy_from(encoder, &frame.texture);
        Ok(readback)
    }

    /// Submits the frame's commands and shows it.
    pub fn present(&self, frame: wgpu::SurfaceTexture, encoder: wgpu::CommandEncoder) {
        self.gpu.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
    }
}
