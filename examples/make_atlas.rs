//! Writes assets/textures/atlas.png from the procedural tile generator.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let png = blockworld::render::atlas::encode_png(&blockworld::render::atlas::generate())?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/textures/atlas.png");
    std::fs::write(path, png)?;
    println!("wrote {path}");
    Ok(())
}
