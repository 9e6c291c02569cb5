//! A saved world: a directory holding `world.sqlite` (SQLite in WAL mode,
//! readable with the `sqlite3` tool).
//!
//! Tables:
//! - `meta(key, value)`: `format` (this build writes [`FORMAT_VERSION`]),
//!   `seed`, `preset_name`, `preset_text` (the whole preset, so the world
//!   stays the same if the bundled file changes), `edits_applied` (edits
//!   committed so far, for scripts and crash checks), `time_of_day` (0..1,
//!   written once the world has been played; older files lack it);
//! - `blocks(id, name)`: the registry the ids in `edits` refer to;
//! - `player(id = 0, x, y, z, yaw, pitch, mode)`;
//! - `edits(cx, cy, cz, delta)`: one row per edited chunk, its delta as
//!   (block index u16, block id u16) little-endian pairs. What the
//!   simulation changes (flow, fallen sand) is saved here like any edit;
//! - `pending(x, y, z, due)`: the simulation's scheduled updates, with
//!   meta `sim_tick`, the ticks it has run (both absent in older files:
//!   nothing pending, tick 0). They are written in the same transaction
//!   as the edits they belong with, so a reopened world carries on.
//!
//! Every change is one transaction: a crash leaves the last committed state.
//! Opening checks the file (readable, our format, not newer, a valid preset,
//! the same block names) before anything is written to it.

use crate::world::block::BLOCKS;
use crate::world::coords::ChunkPos;
use crate::world::edits::{BlockPos, ChunkEdits};
use crate::worldgen::preset::{Preset, PresetError};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const FORMAT_VERSION: i64 = 1;
pub const FILE_NAME: &str = "world.sqlite";

#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{0}: no world here ({FILE_NAME} is missing); create one with `blockworld world new`")]
    NotAWorld(PathBuf),
    #[error("{0}: a world already exists there")]
    Exists(PathBuf),
    #[error("{path}: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error("{path}: the world file is damaged or not a blockworld world: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error("{path}: saved by a newer blockworld (format {found}; this build reads up to {FORMAT_VERSION})")]
    Newer { path: PathBuf, found: i64 },
    #[error("{path}: the world's preset `{name}` no longer validates: {source}")]
    Preset { path: PathBuf, name: String, source: Box<PresetError> },
    #[error("{path}: {reason}")]
    Sqlite { path: PathBuf, reason: String },
}

/// What a world is made of, besides its edits.
#[derive(Clone, Debug)]
pub struct WorldMeta {
    pub seed: u64,
    pub preset_name: String,
    pub preset_text: String,
    pub format: i64,
    pub edits_applied: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SavedPlayer {
    pub pos: [f64; 3],
    pub yaw: f64,
    pub pitch: f64,
    pub flying: bool,
}

pub struct WorldFile {
    conn: Connection,
    path: PathBuf,
    meta: WorldMeta,
    preset: Preset,
}

fn file_of(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

impl WorldFile {
    /// Creates a world in `dir` (created if missing; refused if a world is there).
    pub fn create(dir: &Path, seed: u64, preset_name_or_path: &str) -> Result<WorldFile, SaveError> {
        let path = file_of(dir);
        if path.exists() {
            return Err(SaveError::Exists(dir.to_path_buf()));
        }
        let (preset, text) = Preset::load_with_text(preset_name_or_path).map_err(|source| SaveError::Preset {
            path: path.clone(),
            name: preset_name_or_path.into(),
            source: Box::new(source),
        })?;
        std::fs::create_dir_all(dir).map_err(|e| SaveError::Io {
            path: dir.to_path_buf(),
            reason: format!("cannot create the directory: {e}"),
        })?;
        let sql = |e: rusqlite::Error| SaveError::Sqlite { path: path.clone(), reason: e.to_string() };
        let mut conn = Connection::open(&path)
            .map_err(|e| SaveError::Io { path: path.clone(), reason: format!("cannot create the world file: {e}") })?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| SaveError::Io {
            path: path.clone(),
            reason: format!("cannot write the world file (is the directory writable?): {e}"),
        })?;
        let tx = conn.transaction().map_err(sql)?;
        tx.execute_batch(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE blocks (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
             CREATE TABLE player (id INTEGER PRIMARY KEY CHECK (id = 0), x REAL NOT NULL, y REAL NOT NULL,
                                  z REAL NOT NULL, yaw REAL NOT NULL, pitch REAL NOT NULL, mode TEXT NOT NULL);
             CREATE TABLE edits (cx INTEGER NOT NULL, cy INTEGER NOT NULL, cz INTEGER NOT NULL, delta BLOB NOT NULL,
                                 PRIMARY KEY (cx, cy, cz)) WITHOUT ROWID;
             CREATE TABLE pending (x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL,
                                   due INTEGER NOT NULL);",
        )
        .map_err(sql)?;
        for (k, v) in [
            ("format", FORMAT_VERSION.to_string()),
            ("seed", seed.to_string()),
            ("preset_name", preset.name.clone()),
            ("preset_text", text.clone()),
            ("edits_applied", "0".into()),
        ] {
            tx.execute("INSERT INTO meta (key, value) VALUES (?1, ?2)", params![k, v]).map_err(sql)?;
        }
        for (i, b) in BLOCKS.iter().enumerate() {
            tx.execute("INSERT INTO blocks (id, name) VALUES (?1, ?2)", params![i as i64, b.name]).map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        let meta = WorldMeta {
            seed,
            preset_name: preset.name.clone(),
            preset_text: text,
            format: FORMAT_VERSION,
            edits_applied: 0,
        };
        Ok(WorldFile { conn, path, meta, preset })
    }

    /// Opens the world in `dir`, checking it first without writing to it.
    pub fn open(dir: &Path) -> Result<WorldFile, SaveError> {
        let path = file_of(dir);
        if !path.is_file() {
            return Err(SaveError::NotAWorld(dir.to_path_buf()));
        }
        // A file SQLite cannot open is an access problem, anything else a damaged file.
        let corrupt = |e: rusqlite::Error| match e.sqlite_error_code() {
            Some(
                rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::PermissionDenied,
            ) => SaveError::Io {
                path: path.clone(),
                reason: format!("cannot open the world file ({e}): is the directory writable?"),
            },
            _ => SaveError::Corrupt { path: path.clone(), reason: e.to_string() },
        };
        let (meta, preset) = {
            let ro =
                Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .map_err(|e| SaveError::Io { path: path.clone(), reason: format!("cannot open: {e}") })?;
            let ok: String = ro.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(corrupt)?;
            if ok != "ok" {
                return Err(SaveError::Corrupt { path: path.clone(), reason: ok });
            }
            let meta = read_meta(&ro, &path)?;
            check_blocks(&ro, &path)?;
            let preset =
                Preset::parse(&meta.preset_text, &format!("{} (saved preset)", path.display())).map_err(|source| {
                    SaveError::Preset { path: path.clone(), name: meta.preset_name.clone(), source: Box::new(source) }
                })?;
            (meta, preset)
        };
        let mut conn =
            Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| SaveError::Io { path: path.clone(), reason: format!("cannot open for writing: {e}") })?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(|e| SaveError::Io { path: path.clone(), reason: format!("cannot write (read-only?): {e}") })?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(SaveError::Io {
                path,
                reason: format!("cannot switch to WAL mode (got `{mode}`): is the directory writable?"),
            });
        }
        // Files from before the simulation lack its table, and files from
        // a smaller registry the newer blocks' names; both are additions.
        // One transaction, not one a statement: this runs at every open.
        let upgrade = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            tx.execute_batch(
                "CREATE TABLE IF NOT EXISTS pending (x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL,
                                                     due INTEGER NOT NULL);",
            )?;
            for (i, b) in BLOCKS.iter().enumerate() {
                tx.execute("INSERT OR IGNORE INTO blocks (id, name) VALUES (?1, ?2)", params![i as i64, b.name])?;
            }
            tx.commit()
        };
        upgrade(&mut conn).map_err(|e| SaveError::Sqlite { path: path.clone(), reason: e.to_string() })?;
        Ok(WorldFile { conn, path, meta, preset })
    }

    pub fn meta(&self) -> &WorldMeta {
        &self.meta
    }

    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The world's directory.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> SaveError + '_ {
        move |e| SaveError::Sqlite { path: self.path.clone(), reason: e.to_string() }
    }

    /// Every chunk's saved edits.
    pub fn load_edits(&self) -> Result<HashMap<ChunkPos, ChunkEdits>, SaveError> {
        let corrupt = |reason: String| SaveError::Corrupt { path: self.path.clone(), reason };
        let mut stmt = self.conn.prepare("SELECT cx, cy, cz, delta FROM edits").map_err(self.sql())?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, i32>(0)?, r.get::<_, i32>(1)?, r.get::<_, i32>(2)?, r.get::<_, Vec<u8>>(3)?))
            })
            .map_err(self.sql())?;
        let mut out = HashMap::new();
        for row in rows {
            let (x, y, z, blob) = row.map_err(|e| corrupt(e.to_string()))?;
            let pos = ChunkPos::new(x, y, z);
            out.insert(pos, ChunkEdits::decode(&blob).map_err(|e| corrupt(format!("chunk {pos}: {e}")))?);
        }
        Ok(out)
    }

    /// Writes changed chunk deltas (whole rows) in one transaction, and
    /// adds `applied` to the `edits_applied` counter in the same one.
    pub fn save_edits(&mut self, deltas: &[(ChunkPos, ChunkEdits)], applied: u64) -> Result<(), SaveError> {
        let path = self.path.clone();
        let sql = |e: rusqlite::Error| SaveError::Sqlite { path: path.clone(), reason: e.to_string() };
        let tx = self.conn.transaction().map_err(sql)?;
        write_edits(&tx, deltas).map_err(sql)?;
        let total = self.meta.edits_applied + applied;
        tx.execute("UPDATE meta SET value = ?1 WHERE key = 'edits_applied'", params![total.to_string()])
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        self.meta.edits_applied = total;
        Ok(())
    }

    /// The simulation's tick and pending updates. A row whose position is
    /// outside the accepted range (outside any chunk the world can hold)
    /// or whose due tick is negative marks the file damaged, naming the row.
    pub fn load_sim(&self) -> Result<(u64, Vec<(BlockPos, u64)>), SaveError> {
        let corrupt = |reason: String| SaveError::Corrupt { path: self.path.clone(), reason };
        let tick: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'sim_tick'", [], |r| r.get(0))
            .optional()
            .map_err(self.sql())?;
        let tick = match tick {
            None => 0,
            Some(t) => t.parse::<u64>().map_err(|_| corrupt(format!("meta `sim_tick` `{t}` is not a tick count")))?,
        };
        let mut stmt =
            self.conn.prepare("SELECT rowid, x, y, z, due FROM pending ORDER BY rowid").map_err(self.sql())?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, [r.get::<_, i64>(1)?, r.get(2)?, r.get(3)?], r.get::<_, i64>(4)?))
            })
            .map_err(self.sql())?;
        let mut out = Vec::new();
        for row in rows {
            let (id, [x, y, z], due) = row.map_err(|e| corrupt(format!("pending: {e}")))?;
            let bad = |why: String| corrupt(format!("pending row {id} ({x},{y},{z} due {due}): {why}"));
            crate::world::coords::check_accepted([x, y, z].map(|v| v as f64)).map_err(&bad)?;
            let due = u64::try_from(due).map_err(|_| bad("a due tick is never negative".into()))?;
            out.push((BlockPos::new(x, y, z), due));
        }
        Ok((tick, out))
    }

    /// Writes changed chunk deltas, the simulation's tick and its whole
    /// pending set in one transaction, adding `applied` to `edits_applied`.
    pub fn save_with_sim(
        &mut self,
        deltas: &[(ChunkPos, ChunkEdits)],
        applied: u64,
        tick: u64,
        pending: &[(BlockPos, u64)],
    ) -> Result<(), SaveError> {
        let path = self.path.clone();
        let sql = |e: rusqlite::Error| SaveError::Sqlite { path: path.clone(), reason: e.to_string() };
        let tx = self.conn.transaction().map_err(sql)?;
        write_edits(&tx, deltas).map_err(sql)?;
        let total = self.meta.edits_applied + applied;
        tx.execute("UPDATE meta SET value = ?1 WHERE key = 'edits_applied'", params![total.to_string()])
            .map_err(sql)?;
        tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('sim_tick', ?1)", params![tick.to_string()])
            .map_err(sql)?;
        tx.execute("DELETE FROM pending", []).map_err(sql)?;
        {
            let mut put =
                tx.prepare_cached("INSERT INTO pending (x, y, z, due) VALUES (?1, ?2, ?3, ?4)").map_err(sql)?;
            for (p, due) in pending {
                put.execute(params![p.x, p.y, p.z, i64::try_from(*due).unwrap_or(i64::MAX)]).map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)?;
        self.meta.edits_applied = total;
        Ok(())
    }

    /// The saved player; a position outside the accepted range (see
    /// `coords::check_accepted`) marks the record damaged.
    pub fn player(&self) -> Result<Option<SavedPlayer>, SaveError> {
        let player = self
            .conn
            .query_row("SELECT x, y, z, yaw, pitch, mode FROM player WHERE id = 0", [], |r| {
                Ok(SavedPlayer {
                    pos: [r.get(0)?, r.get(1)?, r.get(2)?],
                    yaw: r.get(3)?,
                    pitch: r.get(4)?,
                    flying: r.get::<_, String>(5)? == "fly",
                })
            })
            .optional()
            .map_err(self.sql())?;
        if let Some(p) = &player {
            crate::world::coords::check_accepted(p.pos).map_err(|e| SaveError::Corrupt {
                path: self.path.clone(),
                reason: format!("the saved player position: {e}"),
            })?;
        }
        Ok(player)
    }

    pub fn save_player(&mut self, p: &SavedPlayer) -> Result<(), SaveError> {
        let mode = if p.flying { "fly" } else { "walk" };
        self.conn
            .execute(
                "INSERT OR REPLACE INTO player (id, x, y, z, yaw, pitch, mode) VALUES (0, ?1, ?2, ?3, ?4, ?5, ?6)",
                params![p.pos[0], p.pos[1], p.pos[2], p.yaw, p.pitch, mode],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    /// The saved time of day, if the world has been played; a value that is
    /// not a time of day reads as none, and the game starts in the morning.
    pub fn time_of_day(&self) -> Result<Option<f64>, SaveError> {
        let v: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'time_of_day'", [], |r| r.get(0))
            .optional()
            .map_err(self.sql())?;
        Ok(v.and_then(|v| v.parse::<f64>().ok()).filter(|t| (0.0..=1.0).contains(t)))
    }

    pub fn save_time_of_day(&mut self, t: f64) -> Result<(), SaveError> {
        self.conn
            .execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('time_of_day', ?1)", params![t.to_string()])
            .map_err(self.sql())?;
        Ok(())
    }

    /// SQLite's full integrity check: "ok" on a sound file.
    pub fn integrity_check(&self) -> Result<String, SaveError> {
        self.conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).map_err(self.sql())
    }
}

fn write_edits(tx: &rusqlite::Transaction, deltas: &[(ChunkPos, ChunkEdits)]) -> rusqlite::Result<()> {
    let mut put = tx.prepare_cached("INSERT OR REPLACE INTO edits (cx, cy, cz, delta) VALUES (?1, ?2, ?3, ?4)")?;
    for (p, e) in deltas {
        put.execute(params![p.x, p.y, p.z, e.encode()])?;
    }
    Ok(())
}

fn read_meta(conn: &Connection, path: &Path) -> Result<WorldMeta, SaveError> {
    let corrupt = |reason: String| SaveError::Corrupt { path: path.to_path_buf(), reason };
    let get = |key: &str| -> Result<String, SaveError> {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| corrupt(e.to_string()))?
            .ok_or_else(|| corrupt(format!("meta has no `{key}`")))
    };
    let number = |key: &str| -> Result<i64, SaveError> {
        get(key)?.parse::<i64>().map_err(|_| corrupt(format!("meta `{key}` is not a number")))
    };
    let format = number("format")?;
    if format > FORMAT_VERSION {
        return Err(SaveError::Newer { path: path.to_path_buf(), found: format });
    }
    if format < 1 {
        return Err(corrupt(format!("format {format} is not a blockworld format")));
    }
    let seed = get("seed")?.parse::<u64>().map_err(|_| corrupt("meta `seed` is not a u64".into()))?;
    let edits_applied = number("edits_applied")?.max(0) as u64;
    Ok(WorldMeta { seed, preset_name: get("preset_name")?, preset_text: get("preset_text")?, format, edits_applied })
}

/// The ids in the file must mean the same blocks in this build.
fn check_blocks(conn: &Connection, path: &Path) -> Result<(), SaveError> {
    let corrupt = |reason: String| SaveError::Corrupt { path: path.to_path_buf(), reason };
    let mut stmt = conn.prepare("SELECT id, name FROM blocks").map_err(|e| corrupt(e.to_string()))?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
        .map_err(|e| corrupt(e.to_string()))?;
    for row in rows {
        let (id, name) = row.map_err(|e| corrupt(e.to_string()))?;
        let here = usize::try_from(id).ok().and_then(|i| BLOCKS.get(i)).map(|b| b.name);
        if here != Some(name.as_str()) {
            return Err(corrupt(format!(
                "block id {id} is `{name}` in the world but `{}` in this build",
                here.unwrap_or("nothing")
            )));
        }
    }
    Ok(())
}
