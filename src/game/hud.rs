//! What the overlay shows, and the settings panel.

use super::hotbar::{Hotbar, SLOTS};
use super::input::HELP;
use super::player::Mode;
use super::settings::{FOV_RANGE, SENSITIVITY_RANGE};
use super::streaming::{memory, StreamCounts, MAX_RENDER_DISTANCE, MIN_RENDER_DISTANCE};
use super::world_menu::{MenuChoice, Widget, WorldMenu};
use crate::backend::service::{Balance, LaneReport};
use crate::backend::Engine;
use crate::far::clipmap::MAX_HORIZON;
use crate::render::atlas;
use crate::render::world_renderer::DrawStats;
use crate::world::block::BlockId;
use std::path::Path;

/// Where the player is and faces, and how they move.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Pose {
    pub pos: [f64; 3],
    pub yaw: f64,
    pub pitch: f64,
    pub mode: Mode,
    /// The fluid the player swims in, if any.
    pub fluid: Option<super::player::Fluid>,
}

/// The settings panel's values as the frame starts.
#[derive(Clone, Copy, Debug)]
pub struct PanelValues {
    pub fov_degrees: f64,
    pub mouse_sensitivity: f64,
    pub fullscreen: bool,
    pub culling: bool,
    /// 0..1, 0.5 is noon.
    pub time_of_day: f64,
    pub sound: crate::audio::Volumes,
}

pub struct HudData {
    pub fps: f64,
    pub frame_ms: f64,
    pub pose: Pose,
    pub counts: StreamCounts,
    /// What the last frame drew.
    pub draw: DrawFigures,
    pub backend: String,
    /// The engine the player chose (CPU, the device, hybrid).
    pub engine: Engine,
    pub balance: Balance,
    pub gpu_off: Option<String>,
    pub chunks_per_second: f64,
    pub render_distance: i32,
    /// Far terrain's reach in metres (0 off), and what it holds.
    pub far: (u32, crate::far::FarCounts),
    /// A short line for the player: what a key did, or what needs their
    /// attention (the GPU could not open, a save failed).
    pub message: Option<String>,
    /// The debug overlay (F3): frame time, position, chunks, generation.
    pub debug: bool,
    /// Show the crosshair (the mouse is captured).
    pub crosshair: bool,
    /// The targeted block's edges on screen, in points.
    pub outline: Vec<[egui::Pos2; 2]>,
    pub hotbar: Hotbar,
    pub panel: PanelValues,
}

/// Block icons for the hotbar: each block's side tile as an egui texture.
pub struct Icons(Vec<egui::TextureHandle>);

impl Icons {
    pub fn new(ctx: &egui::Context) -> Icons {
        let tiles = atlas::generate();
        Icons(
            BlockId::all()
                .map(|b| {
                    let px = &tiles[b.info().tiles[1] as usize];
                    let image = egui::ColorImage::from_rgba_unmultiplied([atlas::TILE, atlas::TILE], px);
                    ctx.load_texture(format!("block-{}", b.name()), image, egui::TextureOptions::NEAREST)
                })
                .collect(),
        )
    }

    fn of(&self, b: BlockId) -> Option<&egui::TextureHandle> {
        self.0.get(b.0 as usize)
    }
}

/// Blocks a player can put in the hotbar.
fn placeable() -> impl Iterator<Item = BlockId> {
    BlockId::all().filter(|b| b.info().placeable())
}

/// Changes the player asked for in the settings panel.
#[derive(Default)]
pub struct SettingsChange {
    pub render_distance: Option<i32>,
    pub horizon: Option<u32>,
    pub engine: Option<Engine>,
    pub fly: Option<bool>,
    /// A hotbar slot and the block chosen for it.
    pub hotbar_slot: Option<(usize, BlockId)>,
    pub fov_degrees: Option<f64>,
    pub mouse_sensitivity: Option<f64>,
    pub fullscreen: Option<bool>,
    pub culling: Option<bool>,
    pub time_of_day: Option<f64>,
    pub sound: Option<crate::audio::Volumes>,
    /// A button or box was clicked (the interface's click sound).
    pub clicked: bool,
    /// What the player chose in the game menu.
    pub menu_choice: Option<MenuChoice>,
    /// The game menu's widgets on screen, when it is shown.
    pub menu_widgets: Vec<Widget>,
}

fn crosshair_and_outline(ctx: &egui::Context, d: &HudData) {
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::unique("aim")));
    let white = egui::Stroke::new(2.0, egui::Color32::from_white_alpha(220));
    for seg in &d.outline {
        painter.line_segment(*seg, egui::Stroke::new(2.0, egui::Color32::from_black_alpha(200)));
    }
    if d.crosshair {
        let c = ctx.content_rect().center();
        painter.line_segment([c - egui::vec2(9.0, 0.0), c + egui::vec2(9.0, 0.0)], white);
        painter.line_segment([c - egui::vec2(0.0, 9.0), c + egui::vec2(0.0, 9.0)], white);
    }
}

fn hotbar(ctx: &egui::Context, d: &HudData, icons: &Icons) {
    const SLOT: f32 = 44.0;
    egui::Area::new(egui::Id::unique("hotbar")).anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -56.0)).show(
        ctx,
        |ui| {
            egui::Frame::new().fill(egui::Color32::from_black_alpha(150)).inner_margin(4.0).corner_radius(4.0).show(
                ui,
                |ui| {
                    ui.spacing_mut().item_spacing = egui::vec2(4.0, 2.0);
                    ui.horizontal(|ui| {
                        for (i, b) in d.hotbar.slots.iter().enumerate() {
                            let (rect, _) = ui.allocate_exact_size(egui::vec2(SLOT, SLOT), egui::Sense::hover());
                            let painter = ui.painter();
                            painter.rect_filled(rect, 3.0, egui::Color32::from_gray(40));
                            if let Some(t) = icons.of(*b) {
                                egui::Image::new((t.id(), egui::vec2(SLOT - 10.0, SLOT - 10.0)))
                                    .paint_at(ui, rect.shrink(5.0));
                            }
                            let (width, colour) = if i == d.hotbar.selected {
                                (3.0, egui::Color32::WHITE)
                            } else {
                                (1.0, egui::Color32::from_gray(110))
                            };
                            painter.rect_stroke(rect, 3.0, egui::Stroke::new(width, colour), egui::StrokeKind::Inside);
                            painter.text(
                                rect.left_top() + egui::vec2(4.0, 2.0),
                                egui::Align2::LEFT_TOP,
                                format!("{}", i + 1),
                                egui::FontId::proportional(11.0),
                                egui::Color32::WHITE,
                            );
                        }
                    });
                    let name = d.hotbar.block().name().replace('_', " ");
                    ui.label(egui::RichText::new(name).color(egui::Color32::WHITE));
                },
            );
        },
    );
}

fn compass(yaw: f64) -> &'static str {
    const NAMES: [&str; 8] =
        ["south (+z)", "south-east", "east (+x)", "north-east", "north (-z)", "north-west", "west (-x)", "south-west"];
    NAMES[(((yaw.rem_euclid(360.0) + 22.5) / 45.0) as usize) % 8]
}

/// The game menu to draw this frame, and the world being played.
pub struct MenuView<'a> {
    pub menu: &'a mut WorldMenu,
    pub current: Option<&'a Path>,
}

pub fn draw(
    ctx: &egui::Context,
    d: &HudData,
    settings_open: bool,
    icons: &mut Option<Icons>,
    menu: Option<&mut MenuView>,
) -> SettingsChange {
    let mut change = SettingsChange::default();
    if let Some(m) = menu {
        change.menu_choice = m.menu.draw(ctx, m.current, &mut change.menu_widgets);
    }
    let icons = icons.get_or_insert_with(|| Icons::new(ctx));
    crosshair_and_outline(ctx, d);
    hotbar(ctx, d, icons);
    if d.debug {
        debug_overlay(ctx, d);
    }
    if let Some(m) = &d.message {
        message_line(ctx, m);
    }
    // The keys are listed while the cursor is free (menus) or the overlay is on.
    if d.debug || !d.crosshair {
        egui::Area::new(egui::Id::unique("help")).anchor(egui::Align2::LEFT_BOTTOM, egui::vec2(8.0, -8.0)).show(
            ctx,
            |ui| {
                // As wide as the window allows, so it stays below the hotbar.
                ui.set_max_width(ctx.content_rect().width() - 24.0);
                egui::Frame::new().fill(egui::Color32::from_black_alpha(150)).inner_margin(4.0).show(ui, |ui| {
                    ui.label(egui::RichText::new(HELP).monospace().color(egui::Color32::WHITE));
                });
            },
        );
    }
    if settings_open {
        settings_panel(ctx, d, &mut change);
    }
    change
}

/// The settings panel (Tab); what the player changed goes into `change`.
fn settings_panel(ctx: &egui::Context, d: &HudData, change: &mut SettingsChange) {
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
            // What the slider's distance costs: a distance that would not
            // fit is refused when it is let go, with the reason.
            ui.small(format!(
                "{} chunks, about {} of memory",
                memory::data_chunks(r),
                memory::size_text(memory::estimate(r))
            ));
            let mut h = d.far.0;
            let slider = egui::Slider::new(&mut h, 0..=MAX_HORIZON).step_by(500.0).text("horizon (m, 0 off)");
            if ui.add(slider).changed() {
                change.horizon = Some(h);
            }
            let mut fov = d.panel.fov_degrees;
            if ui.add(egui::Slider::new(&mut fov, FOV_RANGE).text("field of view (°)")).changed() {
                change.fov_degrees = Some(fov);
            }
            let mut k = d.panel.mouse_sensitivity;
            if ui
                .add(egui::Slider::new(&mut k, SENSITIVITY_RANGE).logarithmic(true).text("mouse sensitivity (°/px)"))
                .changed()
            {
                change.mouse_sensitivity = Some(k);
            }
            let mut t = d.panel.time_of_day;
            if ui.add(egui::Slider::new(&mut t, 0.0..=1.0).text("time of day (0.5 noon; hold T to speed up)")).changed()
            {
                change.time_of_day = Some(t);
            }
            let mut full = d.panel.fullscreen;
            if ui.checkbox(&mut full, "fullscreen (F11)").changed() {
                change.fullscreen = Some(full);
            }
            let mut culling = d.panel.culling;
            if ui.checkbox(&mut culling, "skip what cannot be seen (culling)").changed() {
                change.culling = Some(culling);
            }
            ui.horizontal(|ui| {
                ui.label("generate on");
                for (e, name) in [(Engine::Cpu, "CPU"), (Engine::Gpu, "GPU"), (Engine::Hybrid, "both (hybrid)")] {
                    let chosen = if e == Engine::Gpu { d.engine.is_device() } else { d.engine == e };
                    if ui.radio(chosen, name).clicked() && !chosen {
                        change.engine = Some(e);
                    }
                }
            });
            let mut fly = d.pose.mode == Mode::Fly;
            if ui.checkbox(&mut fly, "fly").changed() {
                change.fly = Some(fly);
            }
            ui.separator();
            ui.label("Sound");
            let mut v = d.panel.sound;
            let mut moved = false;
            for (value, name) in [(&mut v.master, "master"), (&mut v.blocks, "blocks"), (&mut v.ambience, "ambience")] {
                moved |= ui.add(egui::Slider::new(value, 0.0..=1.0).text(name)).changed();
            }
            moved |= ui.checkbox(&mut v.mute_unfocused, "mute when the window loses focus").changed();
            if moved {
                change.sound = Some(v);
            }
            ui.separator();
            ui.label("Hotbar");
            for slot in 0..SLOTS {
                let current = d.hotbar.slots[slot];
                egui::ComboBox::from_id_salt(("hotbar", slot))
                    .selected_text(format!("{}: {}", slot + 1, current.name()))
                    .show_ui(ui, |ui| {
                        for b in placeable() {
                            if ui.selectable_label(b == current, b.name()).clicked() {
                                change.hotbar_slot = Some((slot, b));
                            }
                        }
                    });
            }
            ui.label("Tab closes this panel.");
        },
    );
}

/// A frame's draw figures, and the meshes in the frustum (the split of
/// what was culled), counted only while the overlay shows them.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrawFigures {
    pub stats: DrawStats,
    pub in_frustum: Option<usize>,
    pub culling: bool,
}

fn draw_line(d: &DrawFigures) -> String {
    let s = &d.stats;
    let split = match d.in_frustum {
        Some(n) => format!("{} by the frustum, {} hidden", s.in_range.saturating_sub(n), n.saturating_sub(s.drawn)),
        None => format!("{} culled", s.in_range.saturating_sub(s.drawn)),
    };
    let culling = if d.culling { "" } else { " (visibility culling off)" };
    format!("drawn {} of {} meshed chunks: {split}{culling}", s.drawn, s.in_range)
}

/// F3's overlay in the top left corner.
fn debug_overlay(ctx: &egui::Context, d: &HudData) {
    egui::Area::new(egui::Id::unique("hud")).fixed_pos(egui::pos2(8.0, 8.0)).show(ctx, |ui| {
        egui::Frame::new().fill(egui::Color32::from_black_alpha(150)).inner_margin(6.0).corner_radius(4.0).show(
            ui,
            |ui| {
                let c = &d.counts;
                let line = |ui: &mut egui::Ui, s: String| {
                    ui.label(egui::RichText::new(s).monospace().color(egui::Color32::WHITE));
                };
                line(ui, format!("{:.0} FPS  {:.1} ms/frame", d.fps, d.frame_ms));
                line(
                    ui,
                    format!("pos {:.1} {:.1} {:.1}  {:?}", d.pose.pos[0], d.pose.pos[1], d.pose.pos[2], d.pose.mode),
                );
                line(
                    ui,
                    format!("facing {} (yaw {:.0}°, pitch {:.0}°)", compass(d.pose.yaw), d.pose.yaw, d.pose.pitch),
                );
                line(
                    ui,
                    format!(
                        "chunks: {} loaded, {} queued, {} generating, {} meshing",
                        c.loaded, c.queued, c.generating, c.meshing
                    ),
                );
                line(ui, draw_line(&d.draw));
                line(
                    ui,
                    format!(
                        "{} quads, {} draw calls; culling {:.2} ms, encoding {:.2} ms",
                        d.draw.stats.quads_drawn,
                        d.draw.stats.draw_calls,
                        d.draw.stats.cull_us / 1e3,
                        d.draw.stats.encode_us / 1e3
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
                if let Some(b) = balance_line(&d.balance) {
                    line(ui, b);
                }
                if let Some(why) = &d.gpu_off {
                    line(ui, format!("GPU off: {why}"));
                }
                line(ui, format!("render distance {} chunks", d.render_distance));
                if let (horizon @ 1.., f) = &d.far {
                    line(
                        ui,
                        format!(
                            "horizon {} m: {} far tiles, {:.2} M quads, {} to make, {} made on the GPU",
                            horizon,
                            f.tiles_shown,
                            f.quads_shown as f64 / 1e6,
                            f.tiles_pending,
                            f.tiles_from_source
                        ),
                    );
                }
            },
        );
    });
}

/// One short line above the hotbar, where it covers neither the sky nor
/// the crosshair.
fn message_line(ctx: &egui::Context, m: &str) {
    // The whole text went to the terminal; the screen gets its first line.
    const MAX_CHARS: usize = 140;
    let first = m.lines().next().unwrap_or_default();
    let shown = if first.chars().count() > MAX_CHARS || m.lines().nth(1).is_some() {
        format!("{}…", first.chars().take(MAX_CHARS).collect::<String>())
    } else {
        first.to_string()
    };
    egui::Area::new(egui::Id::unique("message")).anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -140.0)).show(
        ctx,
        |ui| {
            egui::Frame::new().fill(egui::Color32::from_black_alpha(150)).inner_margin(4.0).corner_radius(4.0).show(
                ui,
                |ui| {
                    // One line, never wrapped: the area keeps the width of
                    // the first message it showed, and a longer one would
                    // wrap word by word into a narrow column.
                    let text = egui::RichText::new(shown).color(egui::Color32::WHITE);
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                },
            );
        },
    );
}

/// The overlay's line on how generation is shared: α (the device's share
/// of the measured throughput) and what each lane delivers. None while only
/// one lane runs and nothing is measured.
fn balance_line(b: &Balance) -> Option<String> {
    let lane = |name: &str, l: &LaneReport| l.engine.map(|_| format!("{name} {:.0} chunks/s", l.delivered_per_second));
    let lanes: Vec<String> = [lane("CPU", &b.cpu), lane("GPU", &b.device)].into_iter().flatten().collect();
    if lanes.len() < 2 {
        return None;
    }
    let alpha = b.alpha.map_or("measuring".into(), |a| format!("{a:.2}"));
    Some(format!("α {alpha} · {}", lanes.join(" · ")))
}
