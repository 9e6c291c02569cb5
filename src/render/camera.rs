//! The camera: a world position in f64 (precise far from the origin) and a
//! camera-relative view-projection in f32 for the GPU.

use glam::{DMat4, DVec3, Mat4, Vec3, Vec4};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position in world blocks.
    pub eye: DVec3,
    /// Degrees; 0 looks along +z, 90 along +x... see [`Camera::forward`].
    pub yaw: f64,
    /// Degrees, -89..89; positive looks up.
    pub pitch: f64,
    pub fov_y_degrees: f64,
    pub aspect: f64,
    pub far: f64,
}

/// The vertical field of view the game starts with, and the one
/// screenshots and benchmarks use.
pub const DEFAULT_FOV_DEGREES: f64 = 70.0;

impl Camera {
    /// The camera the game, screenshots and benchmarks draw a view with:
    /// an image of `size` pixels, the far plane a little beyond the fog at
    /// `render_distance` chunks (its far corners included).
    pub fn for_view(
        eye: DVec3,
        yaw: f64,
        pitch: f64,
        fov_y_degrees: f64,
        size: (u32, u32),
        render_distance: i32,
    ) -> Camera {
        Camera {
            eye,
            yaw,
            pitch,
            fov_y_degrees,
            aspect: size.0 as f64 / size.1.max(1) as f64,
            far: (render_distance as f64 + 2.0) * 48.0,
        }
    }

    pub fn forward(&self) -> DVec3 {
        let (y, p) = (self.yaw.to_radians(), self.pitch.to_radians());
        DVec3::new(y.sin() * p.cos(), p.sin(), y.cos() * p.cos())
    }

    /// View-projection with the eye at the origin.
    pub fn view_proj(&self) -> Mat4 {
        let view = DMat4::look_to_rh(DVec3::ZERO, self.forward(), DVec3::Y);
        let proj = DMat4::perspective_rh(self.fov_y_degrees.to_radians(), self.aspect, 0.1, self.far);
        (proj * view).as_mat4()
    }

    pub fn frustum(&self) -> Frustum {
        Frustum::from_matrix(self.view_proj())
    }
}

/// Six planes (a, b, c, d): inside where a·x + b·y + c·z + d ≥ 0.
pub struct Frustum {
    planes: [Vec4; 6],
}

impl Frustum {
    pub fn from_matrix(m: Mat4) -> Frustum {
        let r = [m.row(0), m.row(1), m.row(2), m.row(3)];
        let planes = [r[3] + r[0], r[3] - r[0], r[3] + r[1], r[3] - r[1], r[2], r[3] - r[2]];
        Frustum { planes: planes.map(|p| p / p.truncate().length()) }
    }

    /// Whether a box (camera-relative) may be visible.
    pub fn intersects_box(&self, min: Vec3, max: Vec3) -> bool {
        self.planes.iter().all(|p| {
            let n = p.truncate();
            let corner = Vec3::new(
                if n.x >= 0.0 { max.x } else { min.x },
                if n.y >= 0.0 { max.y } else { min.y },
                if n.z >= 0.0 { max.z } else { min.z },
            );
            n.dot(corner) + p.w >= 0.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frustum_keeps_what_is_ahead_and_drops_what_is_behind() {
        let cam = Camera {
            eye: DVec3::new(1e6, 50.0, -1e6),
            yaw: 0.0,
            pitch: 0.0,
            fov_y_degrees: 70.0,
            aspect: 1.5,
            far: 500.0,
        };
        let f = cam.frustum();
        assert!(f.intersects_box(Vec3::new(-4.0, -4.0, 20.0), Vec3::new(4.0, 4.0, 28.0)));
        assert!(!f.intersects_box(Vec3::new(-4.0, -4.0, -28.0), Vec3::new(4.0, 4.0, -20.0)));
        assert!(!f.intersects_box(Vec3::new(-4.0, -4.0, 600.0), Vec3::new(4.0, 4.0, 610.0)));
        assert!((cam.forward() - DVec3::Z).length() < 1e-9);
    }
}
