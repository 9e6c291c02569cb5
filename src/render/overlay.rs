//! The egui overlay: egui-winit for input, egui-wgpu for drawing on top of
//! the frame.

use super::gpu::Gpu;
use std::sync::Arc;
use winit::window::Window;

pub struct Overlay {
    pub ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
}

impl Overlay {
    pub fn new(window: &Window, gpu: &Gpu, format: wgpu::TextureFormat) -> Overlay {
        let ctx = egui::Context::default();
        let state = egui_winit::State::new(ctx.clone(), egui::ViewportId::ROOT, window, None, None, None);
        let renderer = egui_wgpu::Renderer::new(
            &gpu.device,
            format,
            egui_wgpu::RendererOptions {
                msaa_samples: 1,
                depth_stencil_format: None,
                dithering: false,
                ..Default::default()
            },
        );
        Overlay { ctx, state, renderer }
    }

    /// Feeds a window event; true when egui used it (e.g. typing in the panel).
    pub fn on_window_event(&mut self, window: &Window, event: &winit::event::WindowEvent) -> bool {
        self.state.on_window_event(window, event).consumed
    }

    /// Builds the UI and draws it onto `target`.
    pub fn draw(
        &mut self,
        gpu: &Gpu,
        window: &Arc<Window>,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: (u32, u32),
        ui: impl FnMut(&egui::Context),
    ) {
        let input = self.state.take_egui_input(window);
        let output = self.ctx.run_pass(input, ui);
        self.state.handle_platform_output(window, output.platform_output);
        let jobs = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        let screen =
            egui_wgpu::ScreenDescriptor { size_in_pixels: [size.0, size.1], pixels_per_point: output.pixels_per_point };
        for (id, deltas) in &output.textures_delta.set {
            for delta in deltas.iter() {
                self.renderer.update_texture(&gpu.device, &gpu.queue, *id, delta);
            }
        }
        let extra = self.renderer.update_buffers(&gpu.device, &gpu.queue, encoder, &jobs, &screen);
        if !extra.is_empty() {
            gpu.queue.submit(extra);
        }
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("overlay"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let mut pass = pass.forget_lifetime();
            self.renderer.render(&mut pass, &jobs, &screen);
        }
        let mut delta = output.textures_delta;
        for id in &delta.free {
            self.renderer.free_texture(id);
        }
        // Applied above; egui's debug builds check that none is dropped unseen.
        delta.clear();
    }
}
