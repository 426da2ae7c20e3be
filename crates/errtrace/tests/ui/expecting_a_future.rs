// `expecting`'s closure only makes the future; its error would be made when it is polled, after
// the scope ended, and nothing would be expected: this does not compile, and the message names
// `expecting_async`.
use errtrace::code::EREMOTEIO;

async fn read_byte(addr: u8) -> errtrace::Result<u8> {
    Err(errtrace::err!(EREMOTEIO, "no ACK from {:#x}", addr))
}

fn main() {
    let _future = errtrace::expecting(EREMOTEIO, || read_byte(0x40));
}
