// Ring all-reduce: reduce-scatter then all-gather around the ring r -> r+1.
// The buffer is n parts of q = k/n chunks (chunk_unit n); at step s rank r
// reduces part (r - s) mod n, at step n-1 it completes part (r + 1) mod n,
// and steps n..2n-2 circulate the reduced parts. Every chunk is its own
// transfer. `rings` parallel rings (channels 0..rings-1) share the chunks of
// each part (ring c takes chunks c, c + rings, ...). Each ring pipelines
// `window` chunks at a time: chunk j of step s+1 goes while chunk j+1 of
// step s is in flight; window must stay below the connection slots (8).
// Bytes sent per rank: 2 (n-1)/n M. Steps: 2 (n-1).
// Instructions: n q (2n-1); transfers: n q 2(n-1), for any rings and window.
sched.schedule @ring_all_reduce collective = all_reduce algorithm = "ring"
    attributes {collc.chunk_unit = "n", collc.volume = "2 (n-1)/n M",
                collc.steps = "2 (n-1)", collc.channel_param = "rings"}
    params = {rings = 1, window = 4}
    description = "ring: reduce-scatter then all-gather around a ring, per-chunk pipelined; `rings` parallel rings; 2(n-1) steps, 2(n-1)/n M sent per rank" {
  sched.channel c = 0 to rings {
    sched.if "n == 1" {
      // A group of one rank only copies, on channel 0.
      sched.if "c == 0" {
        sched.copy src = input[0] dst = output[0] count = k
      }
    } else {
      // Windows of `window` chunks of this ring: w, w + rings, ...
      sched.for w = c to "k floordiv n" step "window * rings" {
        sched.for j = w to "w + window * rings" step rings {
          sched.if "j < k floordiv n" {
            sched.send to "(r + 1) mod n" src = input["r * (k floordiv n) + j"]
          }
        }
        sched.for s = 1 to "n - 1" {
          sched.for j = w to "w + window * rings" step rings {
            sched.if "j < k floordiv n" {
              sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
                  src = input["((r - s) mod n) * (k floordiv n) + j"] step = s
            }
          }
        }
        sched.for j = w to "w + window * rings" step rings {
          sched.if "j < k floordiv n" {
            sched.recv_reduce_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
                src = input["((r + 1) mod n) * (k floordiv n) + j"]
                dst = output["((r + 1) mod n) * (k floordiv n) + j"]
                step = "n - 1"
          }
        }
        sched.for t = 1 to "n - 1" {
          sched.for j = w to "w + window * rings" step rings {
            sched.if "j < k floordiv n" {
              sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
                  dst = output["((r + 1 - t) mod n) * (k floordiv n) + j"]
                  step = "n - 1 + t"
            }
          }
        }
        sched.for j = w to "w + window * rings" step rings {
          sched.if "j < k floordiv n" {
            sched.recv from "(r - 1) mod n"
                dst = output["((r + 2) mod n) * (k floordiv n) + j"]
                step = "2 * n - 2"
          }
        }
      }
    }
  }
}
