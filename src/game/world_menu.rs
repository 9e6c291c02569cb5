//! The game menu (Esc): resume, quit, start a new world with a seed and a
//! preset (with a map of it, as `blockworld map` draws it), or reopen a
//! recent one. The menu only chooses; the app saves the world being left
//! and opens the next (`app.rs`).

use crate::map::{self, Layer, MapOptions};
use crate::save::recent;
use crate::worldgen::preset::{Preset, BUNDLED};
use crate::worldgen::WorldGen;
use std::path::{Path, PathBuf};

/// The preview covers this many blocks around the origin (where worlds
/// spawn), one pixel every [`PREVIEW_SCALE`] blocks: 128 pixels, a few
/// milliseconds of column samples, so it can follow the typing.
pub const PREVIEW_BLOCKS: u32 = 2048;
pub const PREVIEW_SCALE: u32 = 16;

/// The map of the seed and preset in the form, redrawn when either changes.
#[derive(Default)]
pub struct MapPreview {
    /// The (seed text, preset) it shows.
    key: Option<(String, String)>,
    texture: Option<egui::TextureHandle>,
    note: Option<String>,
}

impl MapPreview {
    /// Brings the preview up to date with the form.
    fn update(&mut self, ctx: &egui::Context, seed: &str, preset: &str) {
        let key = (seed.trim().to_string(), preset.to_string());
        if self.key.as_ref() == Some(&key) {
            return;
        }
        self.key = Some(key);
        self.texture = None;
        self.note = None;
        if seed.trim().is_empty() {
            self.note = Some("type a seed to see its map".into());
            return;
        }
        let world = match Preset::load(preset) {
            Ok(p) => WorldGen::new(p, seed_from_text(seed)),
            Err(e) => {
                self.note = Some(e.to_string());
                return;
            }
        };
        let opts = MapOptions { center: [0, 0], size: PREVIEW_BLOCKS, scale: PREVIEW_SCALE, layer: Layer::Shaded };
        match map::render(&world, &opts) {
            Ok(m) => {
                let image = egui::ColorImage::from_rgb([m.width as usize, m.height as usize], &m.rgb);
                self.texture = Some(ctx.load_texture("world-preview", image, egui::TextureOptions::NEAREST));
            }
            Err(e) => self.note = Some(e.to_string()),
        }
    }

    /// The preview's size in pixels, once drawn.
    pub fn size(&self) -> Option<[usize; 2]> {
        self.texture.as_ref().map(|t| t.size())
    }
}

/// What the player picked in the menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MenuChoice {
    Resume,
    /// Save the world and end the game.
    Quit,
    Open(PathBuf),
    Create {
        dir: PathBuf,
        seed: u64,
        preset: String,
    },
}

/// The menu's form, kept between frames.
pub struct WorldMenu {
    pub name: String,
    pub seed: String,
    pub preset: String,
    pub error: Option<String>,
    recent: Vec<PathBuf>,
    pub preview: MapPreview,
}

impl Default for WorldMenu {
    fn default() -> Self {
        WorldMenu {
            name: "new world".into(),
            seed: String::new(),
            preset: "classic".into(),
            error: None,
            recent: Vec::new(),
            preview: MapPreview::default(),
        }
    }
}

/// A seed from what the player typed: a number is that number, other text
/// is hashed (FNV-1a, so the same words give the same world everywhere),
/// and nothing gives a fresh random seed.
pub fn seed_from_text(text: &str) -> u64 {
    let t = text.trim();
    if t.is_empty() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        return fnv1a(&nanos.to_le_bytes());
    }
    t.parse::<u64>().or_else(|_| t.parse::<i64>().map(|v| v as u64)).unwrap_or_else(|_| fnv1a(t.as_bytes()))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A widget's name and its centre in physical pixels (for `--dump-state`,
/// so tests can click it).
pub type Widget = (String, [f32; 2]);

impl WorldMenu {
    /// Re-reads the recent worlds; called when the menu opens.
    pub fn refresh(&mut self) {
        self.recent = recent::recent();
        self.error = None;
    }

    /// Draws the menu; returns the choice made this frame, if any.
    pub fn draw(
        &mut self,
        ctx: &egui::Context,
        current: Option<&Path>,
        widgets: &mut Vec<Widget>,
    ) -> Option<MenuChoice> {
        let mut choice = None;
        let ppp = ctx.pixels_per_point();
        let mut note = |name: &str, r: &egui::Response| {
            let c = r.rect.center();
            widgets.push((name.to_string(), [c.x * ppp, c.y * ppp]));
        };
        egui::Window::new("Game menu")
            .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    let r = ui.button("Resume (or click the world)");
                    note("resume", &r);
                    if r.clicked() {
                        choice = Some(MenuChoice::Resume);
                    }
                    let r = ui.button("Save and quit");
                    note("quit", &r);
                    if r.clicked() {
                        choice = Some(MenuChoice::Quit);
                    }
                });
                if let Some(dir) = current {
                    ui.label(format!("Playing {}", dir.display()));
                }
                ui.separator();
                ui.heading("New world");
                // The form on the left, the map of what it would create on the right.
                ui.horizontal(|ui| {
                    egui::Grid::new("new-world").num_columns(2).show(ui, |ui| {
                        ui.label("Name");
                        let r = ui.text_edit_singleline(&mut self.name);
                        note("name", &r);
                        ui.end_row();
                        ui.label("Seed");
                        let r = ui.add(egui::TextEdit::singleline(&mut self.seed).hint_text("blank: random"));
                        note("seed", &r);
                        ui.end_row();
                        ui.label("Preset");
                        let r = egui::ComboBox::from_id_salt("preset").selected_text(self.preset.as_str()).show_ui(
                            ui,
                            |ui| {
                                for (name, _) in BUNDLED {
                                    ui.selectable_value(&mut self.preset, name.to_string(), *name);
                                }
                            },
                        );
                        note("preset", &r.response);
                        ui.end_row();
                    });
                    self.preview.update(ui.ctx(), &self.seed, &self.preset);
                    if let Some(t) = &self.preview.texture {
                        ui.image((t.id(), egui::vec2(160.0, 160.0)))
                            .on_hover_text(format!("{PREVIEW_BLOCKS} blocks around the spawn, north up"));
                    } else if let Some(n) = &self.preview.note {
                        ui.label(n);
                    }
                });
                let r = ui.button("Create and play");
                note("create", &r);
                if r.clicked() {
                    match recent::new_world_dir(&self.name) {
                        Some(dir) => {
                            choice = Some(MenuChoice::Create {
                                dir,
                                seed: seed_from_text(&self.seed),
                                preset: self.preset.clone(),
                            })
                        }
                        None => self.error = Some("this system has no data directory for worlds".into()),
                    }
                }
                if let Some(e) = &self.error {
                    ui.colored_label(egui::Color32::from_rgb(255, 120, 100), e);
                }
                ui.separator();
                ui.heading("Recent worlds");
                let others: Vec<&PathBuf> = self.recent.iter().filter(|p| Some(p.as_path()) != current).collect();
                if others.is_empty() {
                    ui.label("none yet");
                }
                for (i, dir) in others.into_iter().enumerate() {
                    let name =
                        dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into());
                    let r = ui.button(name).on_hover_text(dir.display().to_string());
                    note(&format!("recent_{i}"), &r);
                    if r.clicked() {
                        choice = Some(MenuChoice::Open(dir.clone()));
                    }
                }
            });
        choice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The menu, drawn in a headless egui frame, shows the map of the typed
    /// seed and preset, and redraws it only when one of them changes.
    #[test]
    fn the_menu_previews_the_typed_seed() {
        let ctx = egui::Context::default();
        let mut menu = WorldMenu::default();
        let frame = |menu: &mut WorldMenu| {
            let _ = ctx.run_ui(egui::RawInput::default(), |ui| {
                menu.draw(ui.ctx(), None, &mut Vec::new());
            });
        };
        frame(&mut menu);
        assert_eq!(menu.preview.size(), None, "no seed typed: no map");
        menu.seed = "42".into();
        frame(&mut menu);
        let px = (PREVIEW_BLOCKS / PREVIEW_SCALE) as usize;
        assert_eq!(menu.preview.size(), Some([px, px]));
        let first = menu.preview.texture.as_ref().map(|t| t.id());
        frame(&mut menu);
        assert_eq!(menu.preview.texture.as_ref().map(|t| t.id()), first, "same form: same texture");
        menu.preset = "glacial".into();
        frame(&mut menu);
        assert_ne!(menu.preview.texture.as_ref().map(|t| t.id()), first, "another preset: a new map");
        menu.preset = "no-such-preset".into();
        frame(&mut menu);
        assert_eq!(menu.preview.size(), None);
        assert!(menu.preview.note.as_deref().is_some_and(|n| n.contains("unknown preset")), "{:?}", menu.preview.note);
    }

    #[test]
    fn typed_seeds_are_numbers_or_stable_hashes() {
        assert_eq!(seed_from_text(" 42 "), 42);
        assert_eq!(seed_from_text("-1"), u64::MAX);
        assert_eq!(seed_from_text("glacier"), seed_from_text("glacier"));
        assert_ne!(seed_from_text("glacier"), seed_from_text("Glacier"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325, "the FNV-1a offset basis");
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c, "the published FNV-1a 64 value of `a`");
    }
}
