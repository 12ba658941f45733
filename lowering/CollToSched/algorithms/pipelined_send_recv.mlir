// Pipelined send/recv: every rank that sends posts its k chunks one by one
// to the rank it sends to (send_peer), and every rank that receives takes k
// chunks from its sender (recv_peer); expansion sets both per rank from the
// permutation (the coll op's peer function; this schedule's own, a ring
// shift, when none is given), -1 for none. Sends and receives alternate on
// one channel (send chunk j, then receive chunk j), so that no rank waits
// for its sends to drain before it receives: any permutation, cycles
// included, is deadlock-free with one slot per connection.
// Bytes sent: M by every rank that sends. Steps: k chunk steps; over a
// route of h store-and-forward hops the time is about (h + k - 1) chunk
// times instead of h whole-message times.
sched.schedule @pipelined_send_recv collective = send_recv algorithm = "pipelined"
    attributes {collc.chunk_unit = 1, collc.volume = "M (every rank that sends)",
                collc.steps = "k"}
    params = {recv_peer = -1, send_peer = -1} peer = "(r + 1) mod n"
    description = "pipelined: each sender posts its k chunks one by one, each receiver takes them as they come; k chunk steps, M per sender" {
  sched.channel 0 {
    sched.for j = 0 to k {
      sched.if "send_peer >= 0" {
        sched.send to send_peer src = input[j] step = j
      }
      sched.if "recv_peer >= 0" {
        sched.recv from recv_peer dst = output[j] step = j
      }
    }
  }
}
