//! Ore veins and patches of other rock, placed in 3D by the decorations'
//! method (see [`super::placement`]) one dimension up. CUDA twin:
//! `kernels/veins.cuh`, used by `kernels/fill.cu`.
//!
//! * **Candidates.** Space is tiled by cubes of `spacing` blocks, and cells
//!   of 4 × 4 × 4 cubes. Each cube holds one candidate point, jittered
//!   within it by a hash of its cell and index.
//! * **Acceptance.** A candidate takes the threshold of a 4 × 4 × 4 ordered
//!   dithering matrix at its cube, shifted per cell by a hash; it becomes a
//!   vein of the first kind whose accumulated chance at the candidate's
//!   height exceeds that threshold, or of none. Kinds share the candidates,
//!   so two veins never start at one point, and accepted points of any
//!   chance are spread evenly. Chances and radii change linearly with
//!   height, so ores can be rarer and richer deeper down.
//! * **Shape.** A vein is a string of 1–4 blobs, a radius apart along one of
//!   the 26 directions. A blob covers the blocks within its radius, and
//!   half of those up to half a block further out (by a hash of the block),
//!   so edges are ragged.
//! * **Rule.** A terrain block strictly below its column's surface, or the
//!   surface itself where it lies under water (so beds can show patches),
//!   becomes the block of the first-listed kind among the veins that cover
//!   it and may replace it. That is a function of the block alone, so the order in
//!   which veins are visited never matters, and a chunk needs only the
//!   candidates within `vein_reach` of it.
//!
//! Why a candidate pattern and not a 3D noise field: the blocks of a vein
//! are integer tests against a few points, the same on both engines with no
//! floating point, and a chunk with no vein near it is known from a few
//! hundred hashes, so deep rock outside the ore heights stays uniform.

use super::canvas::Canvas;
use super::params::{splitmix64, FlatVein, WorldParams};
use super::placement::{threshold, PATTERN_POINTS};
use super::preset::{MAX_VEIN_KINDS, MAX_VEIN_RADIUS};
use crate::world::block::MAX_BLOCK_TYPES;
use crate::world::chunk::BlockCounts;
use crate::world::coords::{ChunkPos, CHUNK_AREA, CHUNK_SIZE, CHUNK_SIZE_I64, CHUNK_VOLUME};

/// A cell is `CELL_CUBES³` candidate cubes.
pub const CELL_CUBES: i64 = 4;

/// The 4 × 4 × 4 ordered-dithering matrix, index `x + 4y + 16z`: the
/// 2 × 2 × 2 order for the low bits of each coordinate weighs most, so
/// thresholds next to each other are far apart.
pub fn bayer4x4x4() -> [u8; PATTERN_POINTS] {
    // Even corners of the cube first (a tetrahedron), then the odd ones.
    const ORDER: [u8; 8] = [0, 4, 6, 2, 7, 3, 1, 5];
    let mut m = [0u8; PATTERN_POINTS];
    for (i, v) in m.iter_mut().enumerate() {
        let (x, y, z) = (i % 4, (i / 4) % 4, i / 16);
        let low = (x & 1) + 2 * (y & 1) + 4 * (z & 1);
        let high = (x >> 1) + 2 * (y >> 1) + 4 * (z >> 1);
        *v = ORDER[low] * 8 + ORDER[high];
    }
    m
}

/// The hash of one cell of candidate cubes.
fn cell_hash(seed: u64, c: [i64; 3]) -> u64 {
    let xz = splitmix64(((c[0] as u32 as u64) << 32) | c[2] as u32 as u64);
    splitmix64(seed ^ splitmix64(xz ^ c[1] as u32 as u64))
}

/// A kind's share of the candidates at height `y`, in
/// 1/[`super::placement::DENSITY_ONE`].
pub fn density_at(k: &FlatVein, y: i64) -> u32 {
    density_by(k, y, |n| n / (k.highest as i64 - k.lowest as i64))
}

/// A kind's blob radius at height `y` (within its range), rounded.
pub fn radius_at(k: &FlatVein, y: i64) -> i64 {
    radius_by(k, y, |n| n / (k.highest as i64 - k.lowest as i64))
}

/// [`density_at`], its one division by the kind's span made by `by_span`.
#[inline(always)]
fn density_by(k: &FlatVein, y: i64, by_span: impl Fn(i64) -> i64) -> u32 {
    let (lo, hi) = (k.lowest as i64, k.highest as i64);
    if y < lo || y > hi {
        return 0;
    }
    // A flat ramp needs no division (most kinds have one).
    if hi == lo || k.density_top == k.density_bottom {
        return k.density_top;
    }
    let (top, bottom) = (k.density_top as i64, k.density_bottom as i64);
    (top + by_span((bottom - top) * (hi - y))) as u32
}

/// [`radius_at`], its one division by the kind's span made by `by_span`.
#[inline(always)]
fn radius_by(k: &FlatVein, y: i64, by_span: impl Fn(i64) -> i64) -> i64 {
    let (lo, hi) = (k.lowest as i64, k.highest as i64);
    if hi == lo || k.radius_top == k.radius_bottom {
        return k.radius_top as i64;
    }
    let span = hi - lo;
    by_span(k.radius_top as i64 * (y - lo) + k.radius_bottom as i64 * (hi - y) + span / 2)
}

/// One vein: its kind, first blob centre, blob radius, blob count, the step
/// from one blob to the next, and the salt of its ragged edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vein {
    pub kind: u32,
    pub origin: [i64; 3],
    pub radius: i64,
    pub blobs: u32,
    pub step: [i64; 3],
    pub salt: u32,
}

/// A 32-bit hash of a block and a vein's salt: which blocks of the ragged
/// shell a vein takes.
#[inline]
pub fn block_hash(b: [i64; 3], salt: u32) -> u32 {
    let mut h = (b[0] as u32).wrapping_mul(0x8DA6_B343)
        ^ (b[1] as u32).wrapping_mul(0xD816_3841)
        ^ (b[2] as u32).wrapping_mul(0xCB1A_B31F)
        ^ salt;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^ (h >> 12)
}

impl Vein {
    /// The least and greatest block (inclusive, per axis) it can cover.
    pub fn bounds(&self) -> ([i64; 3], [i64; 3]) {
        let last = (self.blobs as i64 - 1).max(0);
        let mut lo = [0; 3];
        let mut hi = [0; 3];
        for a in 0..3 {
            let end = self.origin[a] + last * self.step[a];
            lo[a] = self.origin[a].min(end) - self.radius;
            hi[a] = self.origin[a].max(end) + self.radius;
        }
        (lo, hi)
    }

    /// Whether it covers block `b`.
    #[inline]
    pub fn covers(&self, b: [i64; 3]) -> bool {
        let r2 = self.radius * self.radius;
        let mut shell = false;
        let [ox, oy, oz] = self.origin;
        let [sx, sy, sz] = self.step;
        for j in 0..self.blobs as i64 {
            let (dx, dy, dz) = (b[0] - ox - j * sx, b[1] - oy - j * sy, b[2] - oz - j * sz);
            let d2 = dx * dx + dy * dy + dz * dz;
            if d2 <= r2 {
                return true;
            }
            shell |= d2 <= r2 + self.radius;
        }
        shell && block_hash(b, self.salt) & 1 == 1
    }
}

/// Division by a fixed divisor without a division instruction (Lemire,
/// Kaser and Kurz, "Faster remainder by direct computation"): exact for
/// every 32-bit dividend, and larger ones take the plain division.
#[derive(Clone, Copy)]
struct Divisor {
    d: u32,
    m: u64,
}

impl Divisor {
    /// `d` must not be 0.
    fn new(d: u32) -> Divisor {
        // Wraps to 0 for 1, which `div` and `rem` handle.
        Divisor { d, m: (u64::MAX / d as u64).wrapping_add(1) }
    }

    #[inline(always)]
    fn div(self, n: u64) -> u64 {
        if n > u32::MAX as u64 || self.d == 1 {
            return n / self.d as u64;
        }
        ((self.m as u128 * n as u128) >> 64) as u64
    }

    /// (A remainder by 1 comes out 0 with the wrapped multiplier.)
    #[inline(always)]
    fn rem(self, a: u32) -> u32 {
        ((self.m.wrapping_mul(a as u64) as u128 * self.d as u128) >> 64) as u32
    }
}

/// [`density_at`] and [`radius_at`] of one kind, and its blob count, with
/// their divisors prepared: a chunk tests dozens of candidates against
/// every kind, and a division would be most of that.
#[derive(Clone, Copy)]
struct Ramp {
    kind: FlatVein,
    span: Divisor,
    blobs: Divisor,
}

impl Ramp {
    fn of(kind: &FlatVein) -> Ramp {
        let span = (kind.highest as i64 - kind.lowest as i64).clamp(1, u32::MAX as i64) as u32;
        Ramp { kind: *kind, span: Divisor::new(span), blobs: Divisor::new(kind.blobs_span.saturating_add(1).max(1)) }
    }

    /// A signed quotient by the span, truncated toward zero as `/` is.
    #[inline(always)]
    fn by_span(&self, n: i64) -> i64 {
        let q = self.span.div(n.unsigned_abs()) as i64;
        if n < 0 {
            -q
        } else {
            q
        }
    }

    /// [`density_at`].
    #[inline(always)]
    fn density(&self, y: i64) -> u32 {
        density_by(&self.kind, y, |n| self.by_span(n))
    }

    /// [`radius_at`].
    #[inline(always)]
    fn radius(&self, y: i64) -> i64 {
        radius_by(&self.kind, y, |n| self.by_span(n))
    }
}

/// What every candidate of a box is tested with: the cube spacing and each
/// kind's [`Ramp`].
struct Kinds {
    spacing: Divisor,
    ramps: [Ramp; MAX_VEIN_KINDS],
    count: usize,
}

impl Kinds {
    fn of(p: &WorldParams) -> Kinds {
        let kinds = p.veins.kinds();
        let none = Ramp::of(&FlatVein::default());
        let mut ramps = [none; MAX_VEIN_KINDS];
        for (r, k) in ramps.iter_mut().zip(kinds) {
            *r = Ramp::of(k);
        }
        Kinds { spacing: Divisor::new((p.veins.spacing as u32).max(1)), ramps, count: kinds.len() }
    }

    fn ramps(&self) -> &[Ramp] {
        &self.ramps[..self.count]
    }
}

/// Above every threshold a candidate of cube row `gy` can be accepted
/// under: the kinds' densities together, each at its largest over the
/// heights a centre in that row can take.
fn row_bound(kinds: &Kinds, gy: i64) -> u32 {
    let unit = kinds.spacing.d as i64;
    let (lo, hi) = (gy * unit, gy * unit + unit - 1);
    kinds
        .ramps()
        .iter()
        .map(|r| {
            // Density is linear in height within a kind's range, so its
            // largest lies at an end of the part of the row inside it.
            let (a, b) = (lo.max(r.kind.lowest as i64), hi.min(r.kind.highest as i64));
            if a > b {
                0
            } else {
                r.density(a).max(r.density(b))
            }
        })
        .sum()
}

/// The vein of the candidate in cube `g`, if it is accepted, given the
/// hash of the cell that holds the cube and the [`row_bound`] of its row;
/// only veins centred where `near` allows (the rest are `None` before
/// their kind is chosen).
#[inline(always)]
fn candidate_in(
    p: &WorldParams,
    kinds: &Kinds,
    g: [i64; 3],
    hash: u64,
    bound: u32,
    near: impl Fn([i64; 3]) -> bool,
) -> Option<Vein> {
    let unit = kinds.spacing.d as i64;
    let local = g.map(|v| v.rem_euclid(CELL_CUBES));
    let index = (local[0] + CELL_CUBES * local[1] + CELL_CUBES * CELL_CUBES * local[2]) as u64;
    let shifted = [0, 1, 2].map(|a| ((local[a] as u64).wrapping_add(hash >> (2 * a)) & 3) as usize);
    let level = p.veins.bayer[shifted[0] + 4 * shifted[1] + 16 * shifted[2]];
    let limit = threshold(level, ((hash >> 6) & 63) as u32);
    // No centre in the row gives the kinds more than the bound together:
    // most candidates are turned away here, before any hashing or division.
    if limit >= bound {
        return None;
    }
    let variant = splitmix64(hash.wrapping_add(index + 1));
    // The jitter is 16 bits: the same remainder as in 64.
    let origin = [0, 1, 2].map(|a| g[a] * unit + kinds.spacing.rem(((variant >> (16 * a)) & 0xFFFF) as u32) as i64);
    if !near(origin) {
        return None;
    }
    let mut sum = 0;
    let (at, ramp) = kinds.ramps().iter().enumerate().find(|(_, r)| {
        sum += r.density(origin[1]);
        sum > limit
    })?;
    let radius = ramp.radius(origin[1]);
    let blobs = ramp.kind.blobs_min + ramp.blobs.rem(((variant >> 48) & 0xFF) as u32);
    let d = ((variant >> 56) % 27) as i64;
    let dir = match [d % 3 - 1, (d / 3) % 3 - 1, d / 9 - 1] {
        [0, 0, 0] => [1, 0, 0],
        v => v,
    };
    let step = dir.map(|c| c * radius.max(1));
    Some(Vein { kind: at as u32, origin, radius, blobs, step, salt: (variant >> 24) as u32 })
}

/// Every vein that can cover a block of the box `lo..=hi`.
pub fn touching(p: &WorldParams, lo: [i64; 3], hi: [i64; 3]) -> Vec<Vein> {
    let mut out = Vec::new();
    visit_touching(p, lo, hi, |v| {
        out.push(v);
        true
    });
    out
}

/// Calls `f` with every vein that can cover a block of the box `lo..=hi`
/// until it returns false.
fn visit_touching(p: &WorldParams, lo: [i64; 3], hi: [i64; 3], mut f: impl FnMut(Vein) -> bool) {
    if !p.has_veins() || lo[1] > p.veins.highest as i64 + p.veins.reach as i64 {
        return;
    }
    if hi[1] < p.veins.lowest as i64 - p.veins.reach as i64 {
        return;
    }
    let kinds = Kinds::of(p);
    let unit = kinds.spacing.d as i64;
    let reach = p.veins.reach as i64;
    // Half-open ranges of cubes, then of cells, per axis.
    let cubes: [(i64, i64); 3] =
        std::array::from_fn(|a| ((lo[a] - reach).div_euclid(unit), (hi[a] + reach).div_euclid(unit) + 1));
    let cells = |a: usize| cubes[a].0.div_euclid(CELL_CUBES)..(cubes[a].1 - 1).div_euclid(CELL_CUBES) + 1;
    let within =
        |a: usize, cell: i64| (cell * CELL_CUBES).max(cubes[a].0)..(cell * CELL_CUBES + CELL_CUBES).min(cubes[a].1);
    // A chunk's box spans a few rows of cubes: no allocation for those.
    let rows = (cubes[1].1 - cubes[1].0) as usize;
    let (mut few, mut many) = ([0u32; 16], Vec::new());
    let bounds: &mut [u32] = if rows <= few.len() {
        &mut few[..rows]
    } else {
        many.resize(rows, 0);
        &mut many
    };
    for (b, gy) in bounds.iter_mut().zip(cubes[1].0..) {
        *b = row_bound(&kinds, gy);
    }
    // Most candidates of the margin are centred beyond reach of the box:
    // turned away before their kind is chosen.
    let near = |o: [i64; 3]| (0..3).all(|a| o[a] + reach >= lo[a] && o[a] - reach <= hi[a]);
    // Cell by cell, so each cell is hashed once for its cubes.
    for kz in cells(2) {
        for ky in cells(1) {
            for kx in cells(0) {
                let hash = cell_hash(p.veins.seed(), [kx, ky, kz]);
                for gz in within(2, kz) {
                    for gy in within(1, ky) {
                        let bound = bounds[(gy - cubes[1].0) as usize];
                        if bound == 0 {
                            continue;
                        }
                        for gx in within(0, kx) {
                            let Some(v) = candidate_in(p, &kinds, [gx, gy, gz], hash, bound, near) else {
                                continue;
                            };
                            let (vl, vh) = v.bounds();
                            if (0..3).all(|a| vl[a] <= hi[a] && vh[a] >= lo[a]) && !f(v) {
                                return;
                            }
                        }
                    }
                }
            }
        }
    }
}

fn chunk_box(pos: ChunkPos) -> ([i64; 3], [i64; 3]) {
    let lo = [pos.x as i64, pos.y as i64, pos.z as i64].map(|c| c * CHUNK_SIZE_I64);
    (lo, lo.map(|c| c + CHUNK_SIZE_I64 - 1))
}

/// Whether some vein may turn a block of chunk `pos` made of `block` alone
/// into ore: a chunk of deep rock is uniform only where none can.
pub fn may_alter(p: &WorldParams, pos: ChunkPos, block: u32) -> bool {
    let (lo, hi) = chunk_box(pos);
    let mut alters = false;
    visit_touching(p, lo, hi, |v| {
        alters = p.veins.kinds[v.kind as usize].replace_mask >> block & 1 == 1;
        !alters
    });
    alters
}

/// The vein pass: turns the blocks of the canvas that veins cover (terrain
/// only, before caves and decorations) into their ore.
pub fn apply(c: &mut Canvas) {
    let (lo, hi) = chunk_box(c.pos);
    // Veins take only blocks below the surface, or on it under water.
    if !c.params.has_veins() || lo[1] > c.heightmap.max_height as i64 {
        return;
    }
    // Nor need a vein be listed that reaches only the air above them.
    let below = [hi[0], hi[1].min(c.heightmap.max_height as i64), hi[2]];
    // One list per generating thread, reused chunk after chunk: the pass
    // runs on every chunk with rock, and a fresh list grew by reallocation.
    thread_local! {
        static VEINS: std::cell::RefCell<Vec<Vein>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    VEINS.with_borrow_mut(|veins| {
        list_useful(c.params, (lo, below), c.counts, veins);
        apply_veins(c.params, lo, &c.heightmap.heights, veins, c.blocks, c.counts);
    });
}

/// Replaces `out` with the veins that can cover a block of the box and may
/// replace a block the chunk holds (`counts`): beds of sand lie near the
/// sea's level, where most chunks hold none, yet their kinds are the
/// commonest there. A block an earlier kind took is claimed, so what the
/// chunk holds before the pass is all a kind can find.
fn list_useful(p: &WorldParams, (lo, hi): ([i64; 3], [i64; 3]), counts: &[u32; MAX_BLOCK_TYPES], out: &mut Vec<Vein>) {
    let present = BlockCounts(*counts).present();
    let kinds = p.veins.kinds();
    out.clear();
    visit_touching(p, lo, hi, |v| {
        if kinds[v.kind as usize].replace_mask as u64 & present != 0 {
            out.push(v);
        }
        true
    });
}

/// One column of a blob's ragged shell, from its centre: the blocks
/// within `shell` above and below the centre's height may be covered, and
/// those within `inner` (where it is not negative) lie within the radius,
/// so are covered whatever their hash.
#[derive(Clone, Copy)]
struct ShellColumn {
    dx: i8,
    dz: i8,
    shell: i8,
    inner: i8,
}

/// The columns of a blob of radius `r` that [`Vein::covers`] may take a
/// block of: those within `r² + r` of its centre.
fn shell_of(r: i64) -> Vec<ShellColumn> {
    let (r2, shell) = (r * r, r * r + r);
    let mut out = Vec::new();
    for dz in -r..=r {
        for dx in -r..=r {
            let across = dx * dx + dz * dz;
            if across <= shell {
                let inner = if across <= r2 { (r2 - across).isqrt() } else { -1 };
                let shell = (shell - across).isqrt();
                out.push(ShellColumn { dx: dx as i8, dz: dz as i8, shell: shell as i8, inner: inner as i8 });
            }
        }
    }
    out
}

/// [`shell_of`] for every radius a preset may give.
fn shells() -> &'static [Vec<ShellColumn>] {
    static SHELLS: std::sync::LazyLock<Vec<Vec<ShellColumn>>> =
        std::sync::LazyLock::new(|| (0..=MAX_VEIN_RADIUS as i64).map(shell_of).collect());
    &SHELLS
}

/// The bits `lo..=hi` of a column's word, clipped to the chunk; none if
/// the clipped range is empty.
#[inline(always)]
fn column_bits(lo: i64, hi: i64) -> u32 {
    let (lo, hi) = (lo.max(0), hi.min(CHUNK_SIZE_I64 - 1));
    if lo > hi {
        return 0;
    }
    (u32::MAX >> (CHUNK_SIZE_I64 - 1 - (hi - lo))) << lo
}

/// [`apply`] for a given list of veins, in any order, over the chunk whose
/// corner block is `lo` and whose columns' surfaces are `heights`.
///
/// Kind by kind in the listed order, so the first kind to take a block
/// keeps it: a block is written once, and its claim is a bit of its
/// column's word. Within a kind the veins' order cannot matter.
///
/// A vein is drawn as two masks per column, gathered from its blobs'
/// lists of shell columns: the blocks within some blob's radius, and those
/// within some blob's shell. [`Vein::covers`] takes the first, and of the
/// rest those its hash picks, so each block needs one hash at most and no
/// walk over the blobs; a column that several blobs reach is resolved
/// once. Only blocks below the surface (or on it under water) that the
/// kind may replace and no earlier kind claimed are looked at.
pub fn apply_veins(
    p: &WorldParams,
    lo: [i64; 3],
    heights: &[i32; CHUNK_AREA],
    veins: &[Vein],
    bytes: &mut [u8],
    counts: &mut [u32; MAX_BLOCK_TYPES],
) {
    if veins.is_empty() {
        return;
    }
    let hi = lo.map(|c| c + CHUNK_SIZE_I64 - 1);
    let bytes = &mut bytes[..CHUNK_VOLUME];
    let water = p.surface.water_level;
    let mut claimed = [0u32; CHUNK_AREA];
    // One vein's masks per column (within its radius, within its shell),
    // and the columns it set, so they can be read and cleared.
    let mut masks = [(0u32, 0u32); CHUNK_AREA];
    // A vein lists a column once (when its shell mask first turns non-zero).
    let (mut touched, mut listed) = ([0u16; CHUNK_AREA], 0usize);
    let side = CHUNK_SIZE as u64;
    for (at, kind) in p.veins.kinds().iter().enumerate() {
        let block = kind.block as u8;
        let replaceable = Replaceable::of(kind.replace_mask);
        let mut taken = 0u32;
        for v in veins.iter().filter(|v| v.kind as usize == at) {
            let owned;
            let shell = match shells().get(v.radius as usize) {
                Some(s) => s,
                None => {
                    owned = shell_of(v.radius);
                    &owned
                }
            };
            for j in 0..v.blobs as i64 {
                let centre = [0, 1, 2].map(|a| v.origin[a] + j * v.step[a]);
                if (0..3).any(|a| centre[a] + v.radius < lo[a] || centre[a] - v.radius > hi[a]) {
                    continue;
                }
                let [cx, cy, cz] = [0, 1, 2].map(|a| centre[a] - lo[a]);
                // The blob's column words by half-height, shared by its
                // columns (a preset's radius is at most MAX_VEIN_RADIUS).
                let spans: [u32; SPANS] = std::array::from_fn(|h| column_bits(cy - h as i64, cy + h as i64));
                let span = |h: i8| match spans.get(h as usize) {
                    Some(&bits) => bits,
                    None => column_bits(cy - h as i64, cy + h as i64),
                };
                for s in shell {
                    let (x, z) = (cx + s.dx as i64, cz + s.dz as i64);
                    if x as u64 >= side || z as u64 >= side {
                        continue;
                    }
                    let reach = span(s.shell);
                    if reach == 0 {
                        continue;
                    }
                    let inner = if s.inner < 0 { 0 } else { span(s.inner) };
                    let column = z as usize * CHUNK_SIZE + x as usize;
                    let m = &mut masks[column];
                    if m.1 == 0 {
                        touched[listed] = column as u16;
                        listed += 1;
                    }
                    m.0 |= inner;
                    m.1 |= reach;
                }
            }
            for &column in &touched[..std::mem::take(&mut listed)] {
                let column = column as usize;
                let (inner, reach) = std::mem::take(&mut masks[column]);
                // Veins take only blocks below the surface, or on it under
                // water.
                let surface = heights[column];
                let top = if surface < water { surface } else { surface - 1 } as i64 - lo[1];
                let free = reach & column_bits(0, top) & !claimed[column];
                if free == 0 {
                    continue;
                }
                let cells = &mut bytes[column * CHUNK_SIZE..][..CHUNK_SIZE];
                let open = free & replaceable.in_column(cells);
                // Within the radius a block is taken; in the shell, where
                // its hash says so (worked out for each, not branched on).
                let mut take = open & inner;
                let mut ragged = open & !inner;
                let (x, z) = ((column % CHUNK_SIZE) as i64 + lo[0], (column / CHUNK_SIZE) as i64 + lo[2]);
                while ragged != 0 {
                    let y = ragged.trailing_zeros();
                    ragged &= ragged - 1;
                    take |= (block_hash([x, y as i64 + lo[1], z], v.salt) & 1) << y;
                }
                claimed[column] |= take;
                while take != 0 {
                    let y = take.trailing_zeros() as usize;
                    take &= take - 1;
                    if let Replaceable::Set(_) = replaceable {
                        counts[cells[y] as usize] -= 1;
                    }
                    cells[y] = block;
                    taken += 1;
                }
            }
        }
        // Counted in a register, not a counter in memory per block: each
        // increment would wait on the last one's store.
        counts[block as usize] += taken;
        if let Replaceable::One(id) = replaceable {
            counts[id as usize] -= taken;
        }
    }
}

/// Half-heights of a blob's column that [`apply_veins`] works out once per
/// blob: every shell of a radius a preset may give.
const SPANS: usize = MAX_VEIN_RADIUS as usize + 1;

/// The blocks a kind may replace, as a test of a whole column at once.
#[derive(Clone, Copy)]
enum Replaceable {
    /// One block id, compared 16 cells at a time.
    One(u8),
    /// Any number of ids: bit b of the mask for id b (ids of 32 or more
    /// are never named, so never replaced).
    Set(u64),
}

impl Replaceable {
    fn of(replace_mask: u32) -> Replaceable {
        match replace_mask.count_ones() {
            1 => Replaceable::One(replace_mask.trailing_zeros() as u8),
            _ => Replaceable::Set(replace_mask as u64),
        }
    }

    /// Bit y set where cell y of a 32-cell column may be replaced.
    #[inline(always)]
    fn in_column(self, cells: &[u8]) -> u32 {
        let cells = &cells[..CHUNK_SIZE];
        match self {
            Replaceable::One(id) => equal_cells(cells, id),
            Replaceable::Set(mask) => {
                cells.iter().enumerate().fold(0, |m, (y, &b)| m | (((mask >> (b as u32).min(63)) & 1) as u32) << y)
            }
        }
    }
}

/// Bit y set where `cells[y] == id`, for the 32 cells of a column.
#[inline(always)]
fn equal_cells(cells: &[u8], id: u8) -> u32 {
    const _: () = assert!(CHUNK_SIZE == 32);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        assert!(cells.len() >= 32);
        // SAFETY: SSE2 is part of every x86_64 target, and both unaligned
        // 16-byte loads lie within the 32 cells asserted above.
        unsafe {
            let want = _mm_set1_epi8(id as i8);
            let low = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(cells.as_ptr().cast()), want)) as u32;
            let high = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(cells[16..].as_ptr().cast()), want)) as u32;
            low | high << 16
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cells.iter().take(32).enumerate().fold(0, |m, (y, &b)| m | ((b == id) as u32) << y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::Preset;

    /// A chunk of rock with its surface far above, the veins that reach
    /// it, and the blocks `paint` makes of them in `order`.
    fn rock(p: &WorldParams) -> (ChunkPos, Vec<Vein>, Box<[i32; CHUNK_AREA]>) {
        let pos = ChunkPos::new(3, -2, -5);
        let (lo, hi) = chunk_box(pos);
        (pos, touching(p, lo, hi), Box::new([1000; CHUNK_AREA]))
    }

    fn stone(p: &WorldParams) -> (Vec<u8>, [u32; MAX_BLOCK_TYPES]) {
        let mut counts = [0; MAX_BLOCK_TYPES];
        counts[p.surface.deep_block as usize] = CHUNK_VOLUME as u32;
        (vec![p.surface.deep_block as u8; CHUNK_VOLUME], counts)
    }

    fn shuffled(veins: &[Vein], seed: u64) -> Vec<Vein> {
        let mut keyed: Vec<(u64, Vein)> =
            veins.iter().enumerate().map(|(i, v)| (splitmix64(seed ^ i as u64), *v)).collect();
        keyed.sort_unstable_by_key(|(k, _)| *k);
        keyed.into_iter().map(|(_, v)| v).collect()
    }

    /// Blocks of the chunk at `lo` that veins of two kinds both cover, and
    /// the radii of those veins.
    fn contested(veins: &[Vein], lo: [i64; 3]) -> (usize, std::collections::BTreeSet<i64>) {
        let (mut n, mut radii) = (0, std::collections::BTreeSet::new());
        for z in lo[2]..lo[2] + CHUNK_SIZE_I64 {
            for y in lo[1]..lo[1] + CHUNK_SIZE_I64 {
                for x in lo[0]..lo[0] + CHUNK_SIZE_I64 {
                    let covering: Vec<&Vein> = veins.iter().filter(|v| v.covers([x, y, z])).collect();
                    if covering.iter().any(|v| v.kind != covering[0].kind) {
                        n += 1;
                        radii.extend(covering.iter().map(|v| v.radius));
                    }
                }
            }
        }
        (n, radii)
    }

    /// Each vein painted over the last in `order`, ignoring the kinds' order.
    fn paint(p: &WorldParams, lo: [i64; 3], order: &[Vein]) -> Vec<u8> {
        let mut bytes = vec![p.surface.deep_block as u8; CHUNK_VOLUME];
        let hi = lo.map(|c| c + CHUNK_SIZE_I64 - 1);
        for v in order {
            let (vl, vh) = v.bounds();
            for z in vl[2].max(lo[2])..=vh[2].min(hi[2]) {
                for y in vl[1].max(lo[1])..=vh[1].min(hi[1]) {
                    for x in vl[0].max(lo[0])..=vh[0].min(hi[0]) {
                        if v.covers([x, y, z]) {
                            let i = (((z - lo[2]) * CHUNK_SIZE_I64 + x - lo[0]) * CHUNK_SIZE_I64 + y - lo[1]) as usize;
                            bytes[i] = p.veins.kinds[v.kind as usize].block as u8;
                        }
                    }
                }
            }
        }
        bytes
    }

    #[test]
    fn overlapping_veins_of_different_kinds_give_the_same_blocks_in_any_order() {
        let veins: crate::worldgen::preset::Veins =
            ron::from_str(include_str!("../../tests/data/crowded_veins.ron")).expect("the test's veins parse");
        let p = WorldParams::new(&Preset { veins: Some(veins), ..Preset::classic() }, 11);
        let heights = Box::new([1000; CHUNK_AREA]);
        let (mut total, mut radii, mut control) = (0, std::collections::BTreeSet::new(), 0);
        for i in 0..16 {
            let pos = ChunkPos::new(i % 4, -2 + (i / 8), i / 4 % 2);
            let (lo, hi) = chunk_box(pos);
            let veins = touching(&p, lo, hi);
            // The rule must have work to do: blocks two kinds of different
            // sizes both cover.
            let (n, r) = contested(&veins, lo);
            if n == 0 {
                continue;
            }
            total += n;
            radii.extend(r);
            let blocks_of = |order: &[Vein]| {
                let (mut bytes, mut counts) = stone(&p);
                apply_veins(&p, lo, &heights, order, &mut bytes, &mut counts);
                (bytes, counts)
            };
            let reference = blocks_of(&veins);
            for seed in 0..8 {
                assert!(blocks_of(&shuffled(&veins, seed)) == reference, "{pos}: order {seed} changed the blocks");
            }
            // Negative control: painting each vein over the last depends
            // on the order it visits them in.
            let painted = paint(&p, lo, &veins);
            control += (0..8).any(|seed| paint(&p, lo, &shuffled(&veins, seed)) != painted) as usize;
        }
        assert!(total > 1000 && radii.len() > 1, "{total} contested blocks, radii {radii:?}");
        assert!(control >= 8, "the painter found an order effect in only {control} chunks");
    }

    /// Above water veins take only blocks strictly below the surface;
    /// under water the surface too, so beds show patches. Never a block
    /// above it.
    #[test]
    fn veins_touch_the_surface_only_under_water_and_nothing_above() {
        let base = WorldParams::new(&Preset::classic(), 11);
        let (pos, veins, _) = rock(&base);
        let lo = chunk_box(pos).0;
        // A surface in the middle of the chunk, different per column.
        let heights: Box<[i32; CHUNK_AREA]> = Box::new(std::array::from_fn(|c| (lo[1] + 8 + (c % 17) as i64) as i32));
        for under_water in [true, false] {
            let mut p = base.clone();
            p.surface.water_level = if under_water { lo[1] as i32 + 100 } else { lo[1] as i32 - 100 };
            let (mut bytes, mut counts) = stone(&p);
            apply_veins(&p, lo, &heights, &veins, &mut bytes, &mut counts);
            let (mut below, mut surface) = (0, 0);
            for (c, &h) in heights.iter().enumerate() {
                for ly in 0..CHUNK_SIZE {
                    let y = lo[1] + ly as i64;
                    let changed = bytes[c * CHUNK_SIZE + ly] != p.surface.deep_block as u8;
                    let may = y < h as i64 || (y == h as i64 && under_water);
                    assert!(may || !changed, "column {c}, height {y}, under water: {under_water}");
                    below += (changed && y < h as i64) as u32;
                    surface += (changed && y == h as i64) as u32;
                }
            }
            assert!(below > 50, "{below}");
            assert_eq!(surface > 0, under_water, "{surface} surface blocks changed, under water: {under_water}");
            assert_eq!(counts.iter().sum::<u32>(), CHUNK_VOLUME as u32);
        }
    }

    #[test]
    fn the_3d_matrix_holds_each_level_once() {
        let mut seen = bayer4x4x4().to_vec();
        seen.sort_unstable();
        assert_eq!(seen, (0..64).collect::<Vec<u8>>());
    }

    #[test]
    fn a_vein_covers_only_blocks_within_its_bounds() {
        let p = WorldParams::new(&Preset::classic(), 7);
        let veins = touching(&p, [-64, -64, -64], [63, 0, 63]);
        assert!(veins.len() > 20, "classic has veins near the origin: {}", veins.len());
        for v in veins.iter().take(40) {
            let (lo, hi) = v.bounds();
            let mut inside = 0;
            for z in lo[2] - 2..=hi[2] + 2 {
                for y in lo[1] - 2..=hi[1] + 2 {
                    for x in lo[0] - 2..=hi[0] + 2 {
                        let within = (0..3).all(|a| (lo[a]..=hi[a]).contains(&[x, y, z][a]));
                        if v.covers([x, y, z]) {
                            assert!(within, "{v:?} covers {:?} outside its bounds", [x, y, z]);
                            inside += 1;
                        }
                    }
                }
            }
            assert!(inside >= 1, "{v:?} covers nothing");
            let reach = p.veins.reach as i64;
            assert!((0..3).all(|a| v.origin[a] - lo[a] <= reach && hi[a] - v.origin[a] <= reach), "{v:?}");
        }
    }

    #[test]
    fn prepared_division_equals_plain_division() {
        let mut state = 0x5EED_u64;
        for d in (1..=40).chain([97, 1000, 65_535, 1 << 21]) {
            let q = Divisor::new(d);
            let mut check = |n: u64| {
                assert_eq!(q.div(n), n / d as u64, "{n} / {d}");
                if n <= u32::MAX as u64 {
                    assert_eq!(q.rem(n as u32), n as u32 % d, "{n} % {d}");
                }
            };
            (0..=0xFFFF).chain([u32::MAX as u64 - 1, u32::MAX as u64, 1 << 32, 1 << 40]).for_each(&mut check);
            for _ in 0..2000 {
                state = splitmix64(state);
                check(state >> 31);
                check(state & 0xFFFF_FFFF);
            }
        }
    }

    #[test]
    fn ramps_equal_the_kinds_density_and_radius() {
        let mut kinds: Vec<FlatVein> = ["alpine", "archipelago", "canyons", "classic", "eroded", "foothills"]
            .iter()
            .flat_map(|name| {
                let preset = Preset::load(name).expect("a bundled preset loads");
                WorldParams::new(&preset, 1).veins.kinds().to_vec()
            })
            .collect();
        // Steep, flat, falling and wide ramps a preset may also give.
        for (lowest, highest, top, bottom, r_top, r_bottom) in
            [(-3, -2, 4000, 1, 4, 0), (5, 5, 7, 9, 1, 3), (-(1 << 20), 1 << 20, 1, 4096, 0, 4), (0, 7, 4096, 0, 3, 1)]
        {
            let mut k = kinds[0];
            (k.lowest, k.highest, k.density_top, k.density_bottom) = (lowest, highest, top, bottom);
            (k.radius_top, k.radius_bottom) = (r_top, r_bottom);
            kinds.push(k);
        }
        assert!(kinds.len() > 12);
        for k in &kinds {
            let ramp = Ramp::of(k);
            let (lo, hi) = (k.lowest as i64, k.highest as i64);
            let step = ((hi - lo) / 500).max(1);
            for y in (lo - 3..=hi + 3).step_by(step as usize).chain([hi, hi - 1, lo + 1]) {
                assert_eq!(ramp.density(y), density_at(k, y), "{k:?} at {y}");
                if (lo..=hi).contains(&y) {
                    assert_eq!(ramp.radius(y), radius_at(k, y), "{k:?} at {y}");
                }
            }
        }
    }

    /// The pass gives each block what the rule says, worked out block by
    /// block with [`Vein::covers`]: over rock, sand, dirt and air, under
    /// surfaces above and below the water, with a kind that replaces more
    /// than one block.
    #[test]
    fn the_pass_gives_every_block_what_the_rule_says() {
        let mut p = WorldParams::new(&Preset::classic(), 5);
        let (stone, sand, dirt) = (p.surface.deep_block as u8, block_id("sand"), block_id("dirt"));
        p.veins.kinds[2].replace_mask |= 1 << sand | 1 << dirt;
        assert!(p.veins.kinds().iter().any(|k| k.replace_mask.count_ones() == 1));
        let water = p.surface.water_level as i64;
        let (mut taken, mut shell_only, mut unlisted) = (0, 0, 0);
        for i in 0..24 {
            let pos = ChunkPos::new(i % 5 - 2, [-3, -2, -1, 0, 1][i as usize % 5], i / 5 - 2);
            let (lo, hi) = chunk_box(pos);
            let mut heights = Box::new([0; CHUNK_AREA]);
            for (c, h) in heights.iter_mut().enumerate() {
                *h = (water - 20 + (splitmix64(c as u64 ^ (i as u64 * 977)) % 50) as i64) as i32;
            }
            // Every third chunk holds no sand, so the kinds that replace
            // only sand find nothing there and their veins go unlisted.
            let sandy = i % 3 != 0;
            let mut bytes = vec![stone; CHUNK_VOLUME];
            for (at, b) in bytes.iter_mut().enumerate() {
                *b = match splitmix64(at as u64 * 31 + i as u64) % 9 {
                    0 if sandy => sand,
                    1 => dirt,
                    2 => p.surface.air_block as u8,
                    _ => stone,
                };
            }
            let mut counts = [0u32; MAX_BLOCK_TYPES];
            bytes.iter().for_each(|&b| counts[b as usize] += 1);
            let veins = touching(&p, lo, hi);
            let mut want = bytes.clone();
            for (at, b) in want.iter_mut().enumerate() {
                let (column, y) = (at / CHUNK_SIZE, (at % CHUNK_SIZE) as i64);
                let world = [(column % CHUNK_SIZE) as i64 + lo[0], y + lo[1], (column / CHUNK_SIZE) as i64 + lo[2]];
                let surface = heights[column] as i64;
                if world[1] > if surface < water { surface } else { surface - 1 } {
                    continue;
                }
                let kind = p.veins.kinds().iter().enumerate().find(|(k, kind)| {
                    kind.replace_mask as u64 >> *b & 1 == 1
                        && veins.iter().any(|v| v.kind as usize == *k && v.covers(world))
                });
                if let Some((_, kind)) = kind {
                    let inner = veins.iter().any(|v| {
                        (0..v.blobs as i64).any(|j| {
                            let d = (0..3).map(|a| (world[a] - v.origin[a] - j * v.step[a]).pow(2)).sum::<i64>();
                            d <= v.radius * v.radius
                        })
                    });
                    shell_only += !inner as usize;
                    taken += 1;
                    *b = kind.block as u8;
                }
            }
            let mut useful = Vec::new();
            list_useful(&p, (lo, hi), &counts, &mut useful);
            unlisted += veins.len() - useful.len();
            apply_veins(&p, lo, &heights, &useful, &mut bytes, &mut counts);
            assert!(bytes == want, "{pos}: the pass and the rule differ");
            let mut tally = [0u32; MAX_BLOCK_TYPES];
            bytes.iter().for_each(|&b| tally[b as usize] += 1);
            assert_eq!(counts, tally, "{pos}: counts");
        }
        assert!(taken > 2000 && shell_only > 200, "{taken} blocks taken, {shell_only} by their hash alone");
        assert!(unlisted > 0, "no vein went unlisted");
    }

    fn block_id(name: &str) -> u8 {
        crate::world::block::BlockId::by_name(name).expect("a classic block").0
    }
}
