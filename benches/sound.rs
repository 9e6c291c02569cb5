//! The sound thread's work: one second of the mix rendered on the capture
//! backend, as `--record-audio` and a device's callback render it, in
//! 256-frame blocks. The time per second of audio is the share of a core
//! the mix takes (the goal is at most 3 %).
//!
//! The scene is a walk through woodland by day, as the forest walk in
//! docs/results/sound-2026-12-03 measured it: wind and birds playing, a
//! footstep on grass every half second, and a placed block's sound.

use blockworld::audio::ambience::{self, Surroundings};
use blockworld::audio::bank::Bank;
use blockworld::audio::capture::{CaptureBackend, Tap, RATE};
use blockworld::audio::mixer::Mixer;
use blockworld::audio::{Action, Scene, Sound, Volumes};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn forest_second(c: &mut Criterion) {
    let tap = Tap::default();
    let bank = Bank::shipped().expect("the shipped sounds");
    let mut mixer = Mixer::<CaptureBackend>::new(tap.clone(), bank, Volumes::default()).expect("a capture mixer");
    let woods = Surroundings { height: 20.0, open: 0.6, green: 0.5, day: 1.0, sky: 15, ..Default::default() };
    let mix = ambience::mix(&woods);
    let heard: Vec<&str> = ambience::LAYERS.iter().zip(mix).filter(|(_, m)| *m > 0.001).map(|(l, _)| *l).collect();
    assert_eq!(heard, ["wind", "birds"], "the scene plays what the walk played");
    let scene =
        Scene { eye: [0.0; 3], forward: [0.0, 0.0, -1.0], mix, under_water: false, water_at: None, lava_at: None };
    mixer.set_scene(&scene);
    let blocks_per_second = (RATE as usize).div_ceil(256);
    // Past the fade-in, so the layers play at their level.
    for _ in 0..2 * blocks_per_second {
        tap.render(256);
    }
    c.bench_function("one second of the mix, woodland by day, steps on grass", |b| {
        b.iter(|| {
            let mut sum = 0.0f32;
            for i in 0..blocks_per_second {
                if i % (blocks_per_second / 2) == 0 {
                    let _ = mixer.play(&Sound::Block { group: "grass", action: Action::Step, at: None });
                }
                if i == 0 {
                    let at = Some([3.0, 0.0, -2.0]);
                    let _ = mixer.play(&Sound::Block { group: "wood", action: Action::Place, at });
                }
                sum += tap.render(256)[0];
            }
            black_box(sum)
        })
    });
}

criterion_group!(benches, forest_second);
criterion_main!(benches);
