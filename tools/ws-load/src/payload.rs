//! Message payloads: exactly `size` bytes, different for every message, and reproducible from the
//! sequence number alone, so a broadcast subscriber can check what it gets without being told.
//!
//! text:   the sequence number in lowercase hex, 16 digits (only the last `size` of them when the
//!         message is shorter), then letters a..z cycling, each byte's letter set by the sequence
//!         number and its position. Plain ASCII, so valid UTF-8.
//! binary: the sequence number as 8 bytes little-endian (the first `size` of them when shorter),
//!         then the bytes 0..=255 cycling the same way: not valid UTF-8, so a server that passed
//!         a binary message on as text would be caught.

const HEX_WIDTH: usize = 16;
const BIN_WIDTH: usize = 8;
const TEXT_CYCLE: usize = 26;
const BIN_CYCLE: usize = 256;

/// 160 rounds of a..z: the padding is copied from here in slices, not made byte by byte.
static TEXT_PAD: [u8; TEXT_CYCLE * 160] = {
    let mut pad = [0u8; TEXT_CYCLE * 160];
    let mut i = 0;
    while i < pad.len() {
        pad[i] = b'a' + (i % TEXT_CYCLE) as u8;
        i += 1;
    }
    pad
};

static BIN_PAD: [u8; BIN_CYCLE * 16] = {
    let mut pad = [0u8; BIN_CYCLE * 16];
    let mut i = 0;
    while i < pad.len() {
        pad[i] = (i % BIN_CYCLE) as u8;
        i += 1;
    }
    pad
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The message number `seq` of `size` bytes.
pub fn make(seq: u64, size: usize, binary: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(size);
    if binary {
        let width = size.min(BIN_WIDTH);
        out.extend_from_slice(&seq.to_le_bytes()[..width]);
        fill(
            &mut out,
            &BIN_PAD,
            BIN_CYCLE,
            offset(seq, width, BIN_CYCLE),
            size - width,
        );
    } else {
        let width = size.min(HEX_WIDTH);
        let mut digits = [0u8; HEX_WIDTH];
        for (i, d) in digits.iter_mut().enumerate() {
            *d = HEX[((seq >> (4 * (HEX_WIDTH - 1 - i))) & 0xf) as usize];
        }
        out.extend_from_slice(&digits[HEX_WIDTH - width..]);
        fill(
            &mut out,
            &TEXT_PAD,
            TEXT_CYCLE,
            offset(seq, width, TEXT_CYCLE),
            size - width,
        );
    }
    out
}

/// The sequence number of a text message that is exactly what `make(seq, size, false)` makes,
/// or None for anything else (another length, a bad digit, a wrong byte anywhere).
/// A message shorter than 16 bytes carries only the low digits: the number is taken modulo
/// 16^size (4.29e9 messages at the smallest broadcast size, 8).
pub fn check_text(buf: &[u8], size: usize) -> Option<u64> {
    if buf.len() != size {
        return None;
    }
    let width = size.min(HEX_WIDTH);
    let mut seq = 0u64;
    for &b in &buf[..width] {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        seq = (seq << 4) | u64::from(d);
    }
    let start = offset(seq, width, TEXT_CYCLE);
    same(&buf[width..], &TEXT_PAD, TEXT_CYCLE, start).then_some(seq)
}

fn offset(seq: u64, width: usize, cycle: usize) -> usize {
    ((seq % cycle as u64) as usize + width) % cycle
}

/// Appends `len` bytes of the cyclic pattern `pad`, starting at `start` (< cycle).
fn fill(out: &mut Vec<u8>, pad: &[u8], cycle: usize, mut start: usize, mut len: usize) {
    while len > 0 {
        let take = len.min(pad.len() - start);
        out.extend_from_slice(&pad[start..start + take]);
        len -= take;
        start = (start + take) % cycle;
    }
}

/// Whether `buf` is the cyclic pattern `pad` from `start` on.
fn same(mut buf: &[u8], pad: &[u8], cycle: usize, mut start: usize) -> bool {
    while !buf.is_empty() {
        let take = buf.len().min(pad.len() - start);
        if buf[..take] != pad[start..start + take] {
            return false;
        }
        buf = &buf[take..];
        start = (start + take) % cycle;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_content() {
        for size in [1, 2, 7, 8, 15, 16, 17, 32, 4096, 5000, 70_000] {
            for seq in [0u64, 1, 25, 26, 0xdead_beef, u64::MAX] {
                let t = make(seq, size, false);
                assert_eq!(t.len(), size);
                assert!(t.is_ascii());
                let b = make(seq, size, true);
                assert_eq!(b.len(), size);
                if size >= 8 {
                    let modulus = if size >= 16 {
                        u128::MAX
                    } else {
                        1u128 << (4 * size)
                    };
                    let want = (u128::from(seq) % modulus) as u64;
                    assert_eq!(check_text(&t, size), Some(want), "size {size} seq {seq}");
                }
            }
        }
        assert_eq!(&make(0x2a, 20, false), b"000000000000002aghij");
        assert_eq!(&make(1, 10, true)[..], &[1, 0, 0, 0, 0, 0, 0, 0, 9, 10]);
        assert_ne!(make(1, 32, false), make(2, 32, false));
        assert!(std::str::from_utf8(&make(3, 300, true)).is_err());
    }

    #[test]
    fn check_rejects_any_change() {
        let good = make(12345, 4096, false);
        for i in [0, 15, 16, 17, 1000, 4095] {
            let mut bad = good.clone();
            bad[i] = if bad[i] == b'a' { b'b' } else { b'a' };
            assert_eq!(check_text(&bad, 4096), None, "byte {i}");
        }
        assert_eq!(check_text(&good[..4095], 4096), None);
        assert_eq!(check_text(&good, 4096), Some(12345));
    }
}
