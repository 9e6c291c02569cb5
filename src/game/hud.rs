//! What the overlay shows, and the settings panel.

use super::input::HELP;
use super::player::Mode;
use super::streaming::{StreamCounts, MAX_RENDER_DISTANCE, MIN_RENDER_DISTANCE};

pub struct HudData {
    pub fps: f64,
    pub frame_ms: f64,
    pub pos: [f64; 3],
    pub yaw: f64,
    pub pitch: f64,
    pub mode: Mode,
    pub counts: StreamCounts,
    pub meshes: usize,
    pub backend: String,
    pub gpu_off: Option<String>,
    pub chunks_per_second: f64,
    pub render_distance: i32,
    pub message: Option<String>,
}

/// Changes the player asked for in the settings panel.
#[derive(Default)]
pub struct SettingsChange {
    pub render_distance: Option<i32>,
    pub use_gpu: Option<bool>,
    pub fly: Option<bool>,
}

fn compass(yaw: f64) -> &'static str {
    const NAMES: [&str; 8] =
        ["south (+z)", "south-east", "east (+x)", "north-east", "north (-z)", "north-west", "west (-x)", "south-west"];
    NAMES[(((yaw.rem_euclid(360.0) + 22.5) / 45.0) as usize) % 8]
}

pub fn draw(ctx: &egui::Context, d: &HudData, settings_open: bool) -> SettingsChange {
    let mut change = SettingsChange::default();
    egui::Area::new(egui::Id::unique("hud")).fixed_pos(egui::pos2(8.0, 8.0)).show(ctx, |ui| {
        egui::Frame::new().fill(egui::Color32::from_black_alpha(150)).inner_margin(6.0).corner_radius(4.0).show(
            ui,
            |ui| {
                let c = &d.counts;
                let line = |ui: &mut egui::Ui, s: String| {
                    ui.label(egui::RichText::new(s).monospace().color(egui::Color32::WHITE));
                };
                line(ui, format!("{:.0} FPS  {:.1} ms/frame", d.fps, d.frame_ms));
                line(ui, format!("pos {:.1} {:.1} {:.1}  {:?}", d.pos[0], d.pos[1], d.pos[2], d.mode));
                line(ui, format!("facing {} (yaw {:.0}°, pitch {:.0}°)", compass(d.yaw), d.yaw, d.pitch));
                line(
                    ui,
                    format!(
                        "chunks: {} loaded, {} queued, {} generating, {} meshing, {} drawn",
                        c.loaded, c.queued, c.generating, c.meshing, d.meshes
                    ),
                );
                line(
                    ui,
                    format!(
                        "ready {}/{} in range · {:.0} chunks/s generated",
                        c.complete, c.wanted, d.chunks_per_second
                    ),
                );
                line(ui, format!("generation: {}", d.backend));
                if let Some(why) = &d.gpu_off {
                    line(ui, format!("GPU off: {why}"));
                }
                line(ui, format!("render distance {} chunks", d.render_distance));
                if let Some(m) = &d.message {
                    line(ui, m.clone());
                }
            },
        );
    });
    egui::Area::new(egui::Id::unique("help")).anchor(egui::Align2::LEFT_BOTTOM, egui::vec2(8.0, -8.0)).show(
        ctx,
        |ui| {
            egui::Frame::new().fill(egui::Color32::from_black_alpha(150)).inner_margin(4.0).show(ui, |ui| {
                ui.label(egui::RichText::new(HELP).monospace().color(egui::Color32::WHITE));
            });
        },
    );
    if settings_open {
        egui::Window::new("Settings").anchor(egui::Align2::RIGHT_TOP, egui::vec2(-8.0, 8.0)).resizable(false).show(
            ctx,
            |ui| {
                let mut r = d.render_distance;
                if ui
                    .add(egui::Slider::new(&mut r, MIN_RENDER_DISTANCE..=MAX_RENDER_DISTANCE).text("render distance"))
                    .changed()
                {
                    change.render_distance = Some(r);
                }
                let mut gpu = d.backend.starts_with("GPU");
                if ui.checkbox(&mut gpu, "generate on the GPU").changed() {
                    change.use_gpu = Some(gpu);
                }
                let mut fly = d.mode == Mode::Fly;
                if ui.checkbox(&mut fly, "fly").changed() {
                    change.fly = Some(fly);
                }
                ui.label("Tab closes this panel.");
            },
        );
    }
    change
}
