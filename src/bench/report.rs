//! Output of `bench gen`: a readable table, CSV rows and an SVG plot.

use super::gen::GenReport;
use anyhow::Context;
use std::fmt::Write as _;
use std::path::Path;

pub fn table(reports: &[GenReport]) -> String {
    let mut s = String::new();
    let Some(first) = reports.first() else {
        return s;
    };
    let sections: [Section; 8] = [header, perlin, far_terrain, stages, whole_world, light, placement, caves];
    for section in sections {
        section(&mut s, first, reports);
    }
    s
}

/// One part of the table: the first report holds the CPU-only figures.
type Section = fn(&mut String, &GenReport, &[GenReport]);

/// The run and the engines.
fn header(s: &mut String, first: &GenReport, reports: &[GenReport]) {
    let _ = writeln!(
        s,
        "blockworld bench gen — seed {}, preset {}, median of {} runs",
        first.run.seed, first.run.preset, first.run.repeat
    );
    let _ = writeln!(s, "on {}", first.run.machine);
    for r in reports {
        let _ = writeln!(s, "  {:<14} {}", r.run.backend, r.run.device);
    }
}

/// Perlin 3D against the other libraries.
fn perlin(s: &mut String, first: &GenReport, _reports: &[GenReport]) {
    let p = &first.perlin;
    let _ = writeln!(
        s,
        "\nPerlin 3D, ns a point on one thread, random points (a line, 32 to a cell):\n  \
         ours 8 lanes {:.2}, ours scalar {:.2} ({:.2}), fastnoise-lite Perlin {:.2}, \
         fastnoise-lite OpenSimplex2 {:.2}, noise crate {:.2} ({:.2})",
        p.ours_lanes,
        p.ours_scalar,
        p.ours_scalar_line,
        p.fastnoise_lite_perlin,
        p.fastnoise_lite_opensimplex2,
        p.noise_crate,
        p.noise_crate_line
    );
}

/// Far tiles and far cells.
fn far_terrain(s: &mut String, first: &GenReport, reports: &[GenReport]) {
    let f = &first.far_tiles;
    let _ = writeln!(
        s,
        "\nFar tiles generated and meshed on one CPU thread: {} tiles, {} cells, {:.2} M cells/s ({:.0} ns a cell)",
        f.tiles,
        f.cells,
        f.cells_per_second_one_thread / 1e6,
        f.ns_per_cell
    );
    let _ = writeln!(s, "Far cells, the column stage alone, per engine:");
    for r in reports {
        let c = &r.far_cells;
        let per_thread =
            c.cells_per_second_per_thread.map_or(String::new(), |v| format!(", {:.2} M a thread", v / 1e6));
        let kernel = c.kernel_ms.map_or(String::new(), |k| format!(", kernel {k:.2} ms"));
        let _ = writeln!(
            s,
            "  {:<14} {:.2} M cells/s ({} cells in {:.1} ms{per_thread}{kernel}) on {}",
            r.run.backend,
            c.cells_per_second / 1e6,
            c.cells,
            c.ms,
            r.run.device
        );
    }
}

/// Table 5.1 and the stages.
fn stages(s: &mut String, _first: &GenReport, reports: &[GenReport]) {
    let _ = writeln!(s, "\nTable 5.1 and stages (ms)");
    let _ = writeln!(s, "  {:<14} {:>14} {:>14} {:>14}", "backend", "one chunk", "heightmap/col", "fill/chunk");
    for r in reports {
        let _ = writeln!(
            s,
            "  {:<14} {:>14.4} {:>14.4} {:>14.4}",
            r.run.backend, r.ms_single_chunk, r.ms_per_column_heightmap, r.ms_per_chunk_fill
        );
    }
}

/// Tables 5.2/5.3, with speed-ups over the first engine.
fn whole_world(s: &mut String, first: &GenReport, reports: &[GenReport]) {
    let _ = writeln!(s, "\nTables 5.2/5.3: whole world, cold heightmap cache (ms)");
    let _ = write!(s, "  {:>8}", "chunks");
    for r in reports {
        let _ = write!(s, " {:>14}", r.run.backend);
    }
    if reports.len() > 1 {
        for r in &reports[1..] {
            let _ = write!(s, " {:>16}", format!("speedup {}", short(&r.run.backend)));
        }
    }
    let _ = writeln!(s);
    for (i, row) in first.world.iter().enumerate() {
        let _ = write!(s, "  {:>8}", row.chunks);
        for r in reports {
            let _ = write!(s, " {:>14.3}", r.world.get(i).map(|w| w.ms).unwrap_or(f64::NAN));
        }
        if reports.len() > 1 {
            for r in &reports[1..] {
                let _ = write!(s, " {:>16.2}", row.ms / r.world.get(i).map(|w| w.ms).unwrap_or(f64::NAN));
            }
        }
        let _ = writeln!(s);
    }
    if reports.len() > 1 {
        let _ = writeln!(s, "  (speedup = {} time / that backend's time)", first.run.backend);
    }
}

/// Lighting one chunk.
fn light(s: &mut String, first: &GenReport, _reports: &[GenReport]) {
    let l = &first.ms_per_chunk_light;
    let _ = writeln!(
        s,
        "\nLight, one CPU thread, a chunk among lit neighbours: {:.3} ms at the surface {:?}; {}",
        l.surface,
        l.surface_chunk,
        match (l.cave, l.cave_chunk) {
            (Some(ms), Some(at)) => format!("{ms:.3} ms in a cave {at:?}"),
            _ => "no cave chunk found".to_string(),
        }
    );
}

/// Decorations and veins.
fn placement(s: &mut String, first: &GenReport, _reports: &[GenReport]) {
    if let (Some(d), Some(v)) = (&first.decorate, &first.veins) {
        let _ = writeln!(
            s,
            "\nPlacement, one CPU thread, 16 columns: decorations {:.4} ms per surface chunk ({:.1} per column, \
             {:.1} trees per column), veins {:.4} ms per chunk they reach ({:.1} per column): per chunk {:.2}× \
             the decorations (goal ≤ 1.5×); per column, veins and decorations {:.2}× the decorations alone",
            d.ms_per_chunk_decorate,
            d.surface_chunks_per_column,
            d.trees_per_column,
            v.ms_per_chunk_veins,
            v.vein_chunks_per_column,
            v.veins_over_decoration_per_chunk,
            v.placement_over_decoration_per_column
        );
    }
    if let Some(f) = &first.furnishing {
        let _ = writeln!(
            s,
            "Furnishing, one CPU thread, 64 columns {} apart: decorations {:.4} ms per surface chunk ({:.1} trees \
             per column) against {:.4} ms unfurnished ({:.1} trees per column): {:.2}× (goal ≤ 1.5×; round by round \
             {:.2}–{:.2}×)",
            f.spacing,
            f.furnished.ms_per_chunk_decorate,
            f.furnished.trees_per_column,
            f.unfurnished.ms_per_chunk_decorate,
            f.unfurnished.trees_per_column,
            f.furnished_over_unfurnished_per_chunk,
            f.round_ratios[0],
            f.round_ratios[1]
        );
    }
}

/// The density stage.
fn caves(s: &mut String, first: &GenReport, _reports: &[GenReport]) {
    if let Some(d) = &first.density {
        let _ = writeln!(
            s,
            "\nCaves, one CPU thread: density stage {:.4} ms per underground chunk (median of {}); \
             noise {:.2} ns/voxel with shared lattice cells (8 lanes), {:.2} ns/voxel alone (scalar; {:.1}×, \
             sharing and SIMD together: `bench lattice` separates them)",
            d.ms_per_chunk_density,
            d.underground_chunks,
            d.ns_per_voxel_cooperative,
            d.ns_per_voxel_naive,
            d.naive_over_cooperative
        );
    }
}

fn short(b: &str) -> &str {
    b
}

pub fn write_csv(path: &Path, reports: &[GenReport]) -> anyhow::Result<()> {
    let mut s = String::from("backend,chunks,ms,kernel_ms\n");
    for r in reports {
        for w in &r.world {
            let k = w.kernel_ms.map(|k| format!("{k:.4}")).unwrap_or_default();
            let _ = writeln!(s, "{},{},{:.4},{}", r.run.backend, w.chunks, w.ms, k);
        }
    }
    std::fs::write(path, s).with_context(|| format!("cannot write CSV to {}", path.display()))
}

/// Time against chunk count per backend, like the thesis's Figure 5.1.
pub fn write_plot(path: &Path, reports: &[GenReport]) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let max_n = reports.iter().flat_map(|r| r.world.iter().map(|w| w.chunks)).max().unwrap_or(1) as f64;
    let max_ms = reports.iter().flat_map(|r| r.world.iter().map(|w| w.ms)).fold(0.0f64, f64::max).max(1e-3) * 1.1;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("cannot draw the plot {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Chunk generation: whole world, cold cache", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..max_n * 1.05, 0f64..max_ms)
        .map_err(|e| err(&e))?;
    chart.configure_mesh().x_desc("chunks in world").y_desc("milliseconds").draw().map_err(|e| err(&e))?;
    let colors = [RED, BLUE, GREEN, MAGENTA, BLACK];
    for (r, color) in reports.iter().zip(colors.iter().cycle()) {
        let pts: Vec<(f64, f64)> = r.world.iter().map(|w| (w.chunks as f64, w.ms)).collect();
        let c = *color;
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(r.run.backend.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled()))).map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
