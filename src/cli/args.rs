//! Argument parsers with clear errors.

use crate::far::clipmap::MAX_HORIZON;
use crate::world::coords::{check_accepted, ChunkPos};
use crate::world::edits::BlockPos;

/// Three comma-separated integers, named `what` in errors.
fn parse_triple<T: std::str::FromStr>(s: &str, what: &str) -> Result<[T; 3], String>
where
    T::Err: std::fmt::Display,
{
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [x, y, z] = parts[..] else {
        return Err(format!("`{s}` is not X,Y,Z (three integers separated by commas)"));
    };
    let n = |p: &str| p.parse::<T>().map_err(|e| format!("`{p}` in `{s}` is not a {what}: {e}"));
    Ok([n(x)?, n(y)?, n(z)?])
}

/// Parses `X,Y,Z` chunk coordinates.
pub fn parse_chunk_pos(s: &str) -> Result<ChunkPos, String> {
    let [x, y, z] = parse_triple::<i32>(s, "chunk coordinate")?;
    let pos = ChunkPos::new(x, y, z);
    pos.check_accepted().map_err(|e| format!("`{s}`: {e}"))?;
    Ok(pos)
}

/// Parses `X,Y,Z` block coordinates.
pub fn parse_block_pos(s: &str) -> Result<BlockPos, String> {
    let [x, y, z] = parse_triple::<i64>(s, "block coordinate")?;
    check_accepted([x, y, z].map(|v| v as f64)).map_err(|e| format!("`{s}`: {e}"))?;
    Ok(BlockPos::new(x, y, z))
}

/// Parses `X,Y,Z` world coordinates (blocks, may be fractional).
pub fn parse_vec3(s: &str) -> Result<[f64; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("`{s}` is not X,Y,Z (three numbers separated by commas)"));
    }
    let mut v = [0.0; 3];
    for (o, p) in v.iter_mut().zip(&parts) {
        *o = p.parse::<f64>().map_err(|e| format!("`{p}` in `{s}` is not a number: {e}"))?;
        if !o.is_finite() {
            return Err(format!("`{p}` in `{s}` is not finite"));
        }
    }
    check_accepted(v).map_err(|e| format!("`{s}`: {e}"))?;
    Ok(v)
}

/// Parses a comma-separated list of positive chunk counts.
pub fn parse_counts(s: &str) -> Result<Vec<usize>, String> {
    let v: Result<Vec<usize>, String> = s
        .split(',')
        .map(str::trim)
        .map(|p| match p.parse::<usize>() {
            Ok(0) => Err("chunk counts must be at least 1".to_string()),
            Ok(n) if n > 1 << 20 => Err(format!("{n} chunks is more than the benchmark allows (1048576)")),
            Ok(n) => Ok(n),
            Err(e) => Err(format!("`{p}` is not a chunk count: {e}")),
        })
        .collect();
    v
}

/// `X,Z` block coordinates (a map centre).
pub fn parse_xz(s: &str) -> Result<[i64; 2], String> {
    let (x, z) = s.split_once(',').ok_or_else(|| format!("`{s}` is not X,Z (two integers separated by a comma)"))?;
    let n = |p: &str| p.trim().parse::<i64>().map_err(|e| format!("`{p}` in `{s}` is not an integer: {e}"));
    let (x, z) = (n(x)?, n(z)?);
    check_accepted([x as f64, 0.0, z as f64]).map_err(|e| format!("`{s}`: {e}"))?;
    Ok([x, z])
}

/// A horizon distance in metres (blocks): 0 (no far terrain) up to
/// [`MAX_HORIZON`].
pub fn parse_horizon(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if v <= MAX_HORIZON => Ok(v),
        Ok(v) => Err(format!("{v} is past the farthest horizon, {MAX_HORIZON} metres (0 turns far terrain off)")),
        Err(e) => Err(format!("`{s}` is not a distance in metres: {e}")),
    }
}

/// Parses `WxH`.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}` is not WIDTHxHEIGHT"))?;
    let n = |p: &str| match p.trim().parse::<u32>() {
        Ok(v) if (16..=8192).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is outside 16..=8192 pixels")),
        Err(e) => Err(format!("`{p}` in `{s}` is not a pixel count: {e}")),
    };
    Ok((n(w)?, n(h)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::coords::{ACCEPTED_BLOCKS, ACCEPTED_CHUNKS};

    #[test]
    fn parsers_accept_good_and_explain_bad_input() {
        assert_eq!(parse_chunk_pos("-2, 1,3").unwrap(), ChunkPos::new(-2, 1, 3));
        assert!(parse_chunk_pos("1,2").unwrap_err().contains("X,Y,Z"));
        assert!(parse_chunk_pos("1,2,x").unwrap_err().contains("`x`"));
        assert!(parse_chunk_pos("1,2,99999999999").is_err());
        assert_eq!(parse_xz("-300, 12").unwrap(), [-300, 12]);
        assert!(parse_xz("12").unwrap_err().contains("X,Z"));
        assert!(parse_xz("1,z").unwrap_err().contains("`z`"));
        assert_eq!(parse_counts("16,24").unwrap(), vec![16, 24]);
        assert_eq!(parse_horizon("0"), Ok(0));
        assert_eq!(parse_horizon("32000"), Ok(32_000));
        assert!(parse_horizon("32001").unwrap_err().contains("farthest"));
        assert!(parse_horizon("-5").unwrap_err().contains("`-5`"));
        assert!(parse_counts("16,0").is_err());
        assert_eq!(parse_size("640x480").unwrap(), (640, 480));
        assert!(parse_size("640").is_err());
        assert!(parse_vec3("1,nan,2").is_err());
    }

    #[test]
    fn positions_past_the_accepted_range_are_refused_and_the_last_ones_inside_kept() {
        let edge = (ACCEPTED_BLOCKS - 1).to_string();
        let past = ACCEPTED_BLOCKS.to_string();
        let chunk_edge = (ACCEPTED_CHUNKS - 1).to_string();
        let chunk_past = ACCEPTED_CHUNKS.to_string();
        assert!(parse_vec3(&format!("{edge},100,-{edge}")).is_ok());
        assert!(parse_vec3(&format!("-{past},100,0")).unwrap_err().contains("beyond the accepted range"));
        assert!(parse_vec3("1e12,100,0").unwrap_err().contains("beyond the accepted range"));
        assert!(parse_vec3("0,16777215.5,0").is_ok());
        assert!(parse_vec3("0,-16777216.5,0").is_err());
        assert!(parse_block_pos(&format!("0,0,-{edge}")).is_ok());
        assert!(parse_block_pos(&format!("0,0,-{past}")).is_err());
        assert!(parse_xz(&format!("{edge},0")).is_ok());
        assert!(parse_xz(&format!("0,{past}")).is_err());
        assert!(parse_chunk_pos(&format!("-{chunk_edge},0,{chunk_edge}")).is_ok());
        assert!(parse_chunk_pos(&format!("0,{chunk_past},0")).unwrap_err().contains("beyond the accepted range"));
    }
}
