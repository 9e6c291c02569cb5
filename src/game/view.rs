//! Where streaming meets the GPU: the view changes streaming decided,
//! applied to the renderer.

use super::far_view::FarView;
use super::streaming::{vertical, Budget, ChunkStreamer, ViewChange};
use crate::render::culling::CullBox;
use crate::render::gpu::Gpu;
use crate::render::world_renderer::{DrawnColumns, Visibility, WorldRenderer};
use crate::world::block::BlockId;
use crate::world::coords::ChunkPos;
use crate::world::edits::BlockPos;
use crate::world::store::StoreError;
use glam::DVec3;

/// Uploads, removes and drops meshes as `changes` say, in order.
pub fn show(changes: Vec<ViewChange>, gpu: &Gpu, renderer: &mut WorldRenderer) {
    for change in changes {
        show_one(change, gpu, renderer);
    }
}

fn show_one(change: ViewChange, gpu: &Gpu, renderer: &mut WorldRenderer) {
    match change {
        ViewChange::Mesh(pos, mesh) => {
            renderer.upload(gpu, pos, &mesh);
        }
        ViewChange::Gone(pos) => renderer.remove(pos),
        ViewChange::Range(range) => renderer.retain(|p| range.renders(p)),
    }
}

/// Everything streaming decided since the last call, shown.
pub fn show_changes(streamer: &mut ChunkStreamer, gpu: &Gpu, renderer: &mut WorldRenderer) {
    show(streamer.take_view_changes(), gpu, renderer);
}

/// One frame of streaming, its changes shown as they are decided (so the
/// uploads count in the frame's streaming budget).
pub fn update(streamer: &mut ChunkStreamer, centre: ChunkPos, budget: Budget, gpu: &Gpu, renderer: &mut WorldRenderer) {
    streamer.update_showing(centre, budget, &mut |change| show_one(change, gpu, renderer));
}

/// An edit, and the meshes it changed shown (they are drawn in the next frame).
pub fn set_block(
    streamer: &mut ChunkStreamer,
    pos: BlockPos,
    block: BlockId,
    gpu: &Gpu,
    renderer: &mut WorldRenderer,
) -> Result<(), StoreError> {
    streamer.set_block(pos, block)?;
    show_changes(streamer, gpu, renderer);
    Ok(())
}

/// One frame of the far view around `eye`: the tiles it wants asked for
/// if it moved, and what changed shown.
pub fn update_far(far: &mut FarView, eye: DVec3, gpu: &Gpu, renderer: &mut WorldRenderer) {
    let mut changes = Vec::new();
    far.update([eye.x, eye.z], &mut changes);
    changes.into_iter().for_each(|c| renderer.show_far(gpu, c));
}

/// Runs `draw` with what the renderer needs to cull by visibility: the
/// streaming range, and the store's face links (`culling` off: frustum
/// only). With far terrain drawn (`far`) and the range not yet complete,
/// also which columns are wholly drawn, so far terrain fills the others.
pub fn with_visibility<R>(
    streamer: &mut ChunkStreamer,
    culling: bool,
    far: bool,
    draw: impl FnOnce(&Visibility) -> R,
) -> R {
    // The chunks' walls serve far terrain alone.
    if far {
        streamer.refresh_solid();
    }
    let streamer = &*streamer;
    let range = streamer.range();
    let (centre, r) = (range.centre, range.render_distance);
    let in_range = |p: ChunkPos| range.renders(p);
    let store = streamer.store();
    let links = |p: ChunkPos| store.links(p);
    let drawn = (far && !streamer.is_complete()).then(|| {
        let v = vertical(r);
        DrawnColumns::new([centre.x, centre.z], r, |x, z| {
            (-v..=v).all(|dy| streamer.is_drawn(ChunkPos::new(x, centre.y.saturating_add(dy), z)))
        })
    });
    draw(&Visibility {
        culling,
        bounds: CullBox { centre, radius: r, vertical: vertical(r) },
        in_range: &in_range,
        links: &links,
        drawn: drawn.as_ref(),
        solid: streamer.solid(),
    })
}
