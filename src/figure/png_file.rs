//! Encoding a canvas as an 8-bit RGB PNG and writing it atomically.
use super::canvas::Canvas;
use crate::output::write_atomic;
use crate::{Error, Result};
use std::path::Path;

/// The PNG bytes of `canvas`.
pub fn encode(canvas: &Canvas) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, canvas.width(), canvas.height());
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc
            .write_header()
            .expect("writing a PNG header to memory cannot fail");
        w.write_image_data(canvas.pixels())
            .expect("the pixel buffer has the size of the image");
    }
    bytes
}

/// Write `canvas` to `path` as a PNG, through a temporary file and a rename.
pub fn write(path: &Path, canvas: &Canvas) -> Result<()> {
    write_atomic(path, &encode(canvas)).map_err(|e| match e {
        Error::Io { path, source } => Error::input(format!(
            "cannot write {}: {source}; fix: choose a writable directory with -o DIR",
            path.display()
        )),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_png_decodes_to_the_same_pixels() {
        let mut c = Canvas::new(7, 5, [10, 20, 30]);
        c.set(3, 2, [200, 100, 0]);
        let bytes = encode(&c);
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (7, 5));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&buf[..info.buffer_size()], c.pixels());
    }
}
