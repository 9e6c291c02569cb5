//! Chunk meshes share a few large vertex buffers ("pages") instead of one
//! buffer per chunk and layer.
//!
//! Why: at render distance 32 the world holds ~90 000 chunk meshes. With one
//! small buffer each, the driver's allocator (gpu-allocator under wgpu's
//! Vulkan backend, and lavapipe's host memory under it) held about 2.4 bytes
//! of memory per byte of mesh, from per-allocation rounding and from blocks
//! fragmented by the constant churn of streaming. Here the waste is what a
//! best-fit range allocator leaves inside our own pages, and a page that
//! empties is given back at once.

use range_alloc::RangeAllocator;
use std::ops::Range;

/// Bytes per page. Large enough that a page holds a few hundred typical
/// chunk meshes, small enough that an empty page is rare waste.
pub const PAGE_BYTES: u64 = 16 << 20;
/// Sub-allocations are rounded up to this many bytes (four quads), so
/// freed holes are never too small to reuse, and every mesh starts on a
/// whole quad.
const GRAIN: u64 = 64;

/// Where a mesh part lives: a page and a byte range inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub page: usize,
    pub range: Range<u64>,
}

/// The allocation policy, apart from any device: which page and range each
/// mesh part gets, and when pages open and close.
#[derive(Default)]
pub struct PagedRanges {
    pages: Vec<Option<RangeAllocator<u64>>>,
}

/// What the owner of the buffers must do after an allocation or a free.
#[derive(Debug, PartialEq, Eq)]
pub enum PageChange {
    None,
    /// Create a buffer of this many bytes for the page.
    Opened(usize, u64),
    /// The page is empty: drop its buffer.
    Closed(usize),
}

impl PagedRanges {
    pub fn alloc(&mut self, bytes: u64) -> (Slot, PageChange) {
        let len = bytes.max(1).div_ceil(GRAIN) * GRAIN;
        for (page, ranges) in self.pages.iter_mut().enumerate() {
            if let Some(r) = ranges {
                if let Ok(range) = r.allocate_range(len) {
                    return (Slot { page, range: range.start..range.start + bytes }, PageChange::None);
                }
            }
        }
        // A mesh larger than a page gets a page of its own size.
        let size = PAGE_BYTES.max(len);
        let mut ranges = RangeAllocator::new(0..size);
        let range = match ranges.allocate_range(len) {
            Ok(r) => r,
            Err(_) => unreachable!("a fresh page of at least `len` bytes fits `len`"),
        };
        let page = match self.pages.iter().position(Option::is_none) {
            Some(i) => {
                self.pages[i] = Some(ranges);
                i
            }
            None => {
                self.pages.push(Some(ranges));
                self.pages.len() - 1
            }
        };
        (Slot { page, range: range.start..range.start + bytes }, PageChange::Opened(page, size))
    }

    pub fn free(&mut self, slot: Slot) -> PageChange {
        let Some(Some(ranges)) = self.pages.get_mut(slot.page) else { return PageChange::None };
        let len = (slot.range.end - slot.range.start).max(1).div_ceil(GRAIN) * GRAIN;
        ranges.free_range(slot.range.start..slot.range.start + len);
        if ranges.is_empty() {
            self.pages[slot.page] = None;
            return PageChange::Closed(slot.page);
        }
        PageChange::None
    }

    /// Bytes of all open pages.
    pub fn capacity(&self) -> u64 {
        self.pages.iter().flatten().map(|r| r.initial_range().end).sum()
    }

    pub fn open_pages(&self) -> usize {
        self.pages.iter().flatten().count()
    }
}

/// The pages as storage buffers on a device, each with the bind group
/// the terrain shader reads its quads through.
#[derive(Default)]
pub struct MeshArena {
    ranges: PagedRanges,
    buffers: Vec<Option<(wgpu::Buffer, wgpu::BindGroup)>>,
}

impl MeshArena {
    /// Stores `data` and returns where it went.
    pub fn store(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &wgpu::BindGroupLayout,
        data: &[u8],
    ) -> Slot {
        let (slot, change) = self.ranges.alloc(data.len() as u64);
        if let PageChange::Opened(page, size) = change {
            if self.buffers.len() <= page {
                self.buffers.resize_with(page + 1, || None);
            }
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("chunk-mesh-page"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("chunk-mesh-page"),
                layout,
                entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
            });
            self.buffers[page] = Some((buffer, group));
        }
        if let Some(Some((buffer, _))) = self.buffers.get(slot.page) {
            queue.write_buffer(buffer, slot.range.start, data);
        }
        slot
    }

    pub fn release(&mut self, slot: Slot) {
        if let PageChange::Closed(page) = self.ranges.free(slot) {
            if let Some((b, _)) = self.buffers.get_mut(page).and_then(Option::take) {
                b.destroy();
            }
        }
    }

    /// The bind group of page `page`, if it is open.
    pub fn page_group(&self, page: usize) -> Option<&wgpu::BindGroup> {
        self.buffers.get(page)?.as_ref().map(|(_, g)| g)
    }

    /// Bytes of vertex memory held, used or not.
    pub fn capacity(&self) -> u64 {
        self.ranges.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the test needs no extra crate.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn slots_never_overlap_and_empty_pages_close() {
        let mut pages = PagedRanges::default();
        let mut live: Vec<Slot> = Vec::new();
        let mut rng = Lcg(7);
        for step in 0..20_000u32 {
            if live.is_empty() || !rng.next().is_multiple_of(3) {
                // Mostly small meshes, sometimes one bigger than a page.
                let bytes = if rng.next().is_multiple_of(500) { PAGE_BYTES + 4 } else { 4 * (1 + rng.next() % 40_000) };
                let (slot, change) = pages.alloc(bytes);
                assert_eq!(slot.range.end - slot.range.start, bytes);
                if let PageChange::Opened(p, size) = change {
                    assert_eq!(p, slot.page);
                    assert!(size >= bytes);
                }
                live.push(slot);
            } else {
                let i = (rng.next() as usize) % live.len();
                let slot = live.swap_remove(i);
                let page = slot.page;
                if let PageChange::Closed(p) = pages.free(slot) {
                    assert_eq!(p, page);
                    assert!(live.iter().all(|s| s.page != p), "step {step}: closed a page still in use");
                }
            }
            if step.is_multiple_of(997) {
                let mut sorted = live.clone();
                sorted.sort_by_key(|s| (s.page, s.range.start));
                for w in sorted.windows(2) {
                    assert!(w[0].page != w[1].page || w[0].range.end <= w[1].range.start, "overlap at step {step}");
                }
            }
        }
        for slot in live.drain(..) {
            pages.free(slot);
        }
        assert_eq!(pages.open_pages(), 0, "every page closes once its meshes are gone");
        assert_eq!(pages.capacity(), 0);
    }

    #[test]
    fn freed_space_is_reused_before_a_new_page_opens() {
        let mut pages = PagedRanges::default();
        let (a, first) = pages.alloc(PAGE_BYTES / 2);
        let (b, _) = pages.alloc(PAGE_BYTES / 4);
        assert_eq!(first, PageChange::Opened(0, PAGE_BYTES));
        assert_eq!(pages.free(a), PageChange::None);
        let (c, change) = pages.alloc(PAGE_BYTES / 2);
        assert_eq!(change, PageChange::None, "the hole left by `a` fits");
        assert_eq!(c.page, b.page);
        assert_eq!(pages.open_pages(), 1);
    }
}
