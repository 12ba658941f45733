// RUN: collc-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Expression syntax
//===----------------------------------------------------------------------===//

sched.schedule @unknown_name collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unknown name 'q'; in scope: r, n, k}}
    sched.send to "(r + q) mod n" src = input[0]
  }
}

// -----

sched.schedule @loop_var_out_of_scope collective = all_gather {
  sched.channel 0 {
    sched.for s = 0 to n {
    }
    // expected-error @+1 {{unknown name 's'; in scope: r, n, k}}
    sched.send to s src = input[0]
  }
}

// -----

sched.schedule @bare_unknown collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unknown name 'p'}}
    sched.send to p src = input[0]
  }
}

// -----

sched.schedule @missing_operand collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected an expression}}
    sched.send to "r +" src = input[0]
  }
}

// -----

sched.schedule @bad_token collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unexpected '/'; divide with floordiv or ceildiv}}
    sched.send to "r / 2" src = input[0]
  }
}

// -----

sched.schedule @bad_start collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected an integer, a name or '(', got '*'}}
    sched.send to "* 2" src = input[0]
  }
}

// -----

sched.schedule @trailing collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unexpected 'r'}}
    sched.send to "(r + 1) r" src = input[0]
  }
}

// -----

sched.schedule @unbalanced collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected ')'}}
    sched.send to "(r + 1 mod n" src = input[0]
  }
}

// -----

sched.schedule @zero_divisor collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'mod' by 0: the divisor must be positive}}
    sched.send to "r mod 0" src = input[0]
  }
}

// -----

sched.schedule @negative_divisor collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'floordiv' by -2: the divisor must be positive}}
    sched.send to "r floordiv -2" src = input[0]
  }
}

// -----

sched.schedule @huge collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{integer 99999999999999999999 is too large}}
    sched.send to "r + 99999999999999999999" src = input[0]
  }
}

// -----

sched.schedule @not_an_expression collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected an integer or a map, got [1]}}
    sched.send to [1] src = input[0]
  }
}

// -----

sched.schedule @not_an_expression collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected an integer, a name, a quoted expression or a map}}
    sched.send to = src = input[0]
  }
}

// -----

sched.schedule @not_equal collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'!=' is not an affine constraint; use sched.if with an else region}}
    sched.if "r != 0" {
    }
  }
}

// -----

sched.schedule @no_comparison collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected a comparison (==, >=, <=, >, <)}}
    sched.if "r + 1" {
    }
  }
}

// -----

sched.schedule @single_equal collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected a comparison (==, >=, <=, >, <)}}
    sched.if "r = 1" {
    }
  }
}

// -----

sched.schedule @unknown_buffer collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unknown buffer 'inbox'; expected input, output or scratch}}
    sched.send to 1 src = inbox[0]
  }
}

// -----

// expected-error @+1 {{unknown collective 'all_things'}}
sched.schedule @unknown_collective collective = all_things {
}

// -----

// expected-error @+1 {{parameter 'a' is given twice}}
sched.schedule @twice collective = all_gather params = {a = 1, a = 2} {
}

// -----

// expected-error @+1 {{send_counts must be an array<i64: ...>}}
sched.schedule @counts collective = all_to_all_v group_size = 1 send_counts = [1] {
}

// -----

// expected-error @+1 {{'mod' by 0: the divisor must be positive}}
#bad = #sched.map<(d0)[s0, s1] -> "d0 mod 0">

// -----

// expected-error @+1 {{unknown name 'x'; in scope: d0, s0, s1}}
#bad = #sched.set<(d0)[s0, s1] : "x >= 0">

// -----

//===----------------------------------------------------------------------===//
// sched.schedule
//===----------------------------------------------------------------------===//

// expected-error @+1 {{group_size must be positive, got 0}}
sched.schedule @n0 collective = all_gather group_size = 0 {
}

// -----

// expected-error @+1 {{chunks_per_part must be positive, got 0}}
sched.schedule @k0 collective = all_gather chunks_per_part = 0 {
}

// -----

// expected-error @+1 {{parameter name 'a.b' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)}}
sched.schedule @dotted collective = all_gather params = {a.b = 1} {
}

// -----

// expected-error @+1 {{parameter name 'n' is reserved (r, n, k, mod, floordiv, ceildiv)}}
sched.schedule @reserved collective = all_gather params = {n = 4} {
}

// -----

// expected-error @+1 {{parameter 'x' is not an integer}}
"sched.schedule"() <{sym_name = "float_param", collective = #sched<collective all_gather>, params = {x = 1.0 : f32}}> ({
^bb0:
}) : () -> ()

// -----

// expected-error @+1 {{collective broadcast needs a root}}
sched.schedule @no_root collective = broadcast {
}

// -----

// expected-error @+1 {{collective all_reduce takes no root}}
sched.schedule @root collective = all_reduce root = 0 {
}

// -----

// expected-error @+1 {{collective send_recv needs a peer (the receiver)}}
sched.schedule @no_peer collective = send_recv root = 0 {
}

// -----

// expected-error @+1 {{only send_recv takes a peer}}
sched.schedule @peer collective = gather root = 0 peer = 1 {
}

// -----

// expected-error @+1 {{root 8 is outside the group of 8 ranks}}
sched.schedule @root8 collective = reduce group_size = 8 root = 8 {
}

// -----

// expected-error @+1 {{peer -1 is outside the group}}
sched.schedule @peer_negative collective = send_recv root = 0 peer = -1 {
}

// -----

// expected-error @+1 {{send_recv's root and peer are both rank 1}}
sched.schedule @same collective = send_recv root = 1 peer = 1 {
}

// -----

// expected-error @+1 {{scratch must not be negative, got -1}}
sched.schedule @scratch collective = all_reduce scratch = -1 {
}

// -----

// expected-error @+1 {{root has 1 dims but 0 are in scope (none in a schedule's header)}}
"sched.schedule"() <{sym_name = "root_dims", collective = #sched<collective scatter>, root = affine_map<(d0)[s0, s1] -> (d0)>}> ({
^bb0:
}) : () -> ()

// -----

// expected-error @+1 {{scratch has 3 symbols but 2 are in scope (n, k and 0 parameters)}}
"sched.schedule"() <{sym_name = "scratch_symbols", collective = #sched<collective all_reduce>, scratch = affine_map<()[s0, s1, s2] -> (s2)>}> ({
^bb0:
}) : () -> ()

// -----

// expected-error @+1 {{scratch has 2 results; an expression has one}}
"sched.schedule"() <{sym_name = "two_results", collective = #sched<collective all_reduce>, scratch = affine_map<()[s0, s1] -> (s0, s1)>}> ({
^bb0:
}) : () -> ()

// -----

// expected-error @+1 {{scratch divides by 0}}
"sched.schedule"() <{sym_name = "div0", collective = #sched<collective all_reduce>, scratch = affine_map<()[s0, s1] -> (s0 mod 0)>}> ({
^bb0:
}) : () -> ()

// -----

// expected-error @+1 {{only all_to_all_v takes send_counts}}
sched.schedule @counts collective = all_to_all group_size = 1 send_counts = array<i64: 1> {
}

// -----

// expected-error @+1 {{send_counts needs a group_size}}
sched.schedule @counts collective = all_to_all_v send_counts = array<i64: 1> {
}

// -----

// expected-error @+1 {{send_counts has 3 entries; a group of 2 ranks needs 4}}
sched.schedule @counts collective = all_to_all_v group_size = 2 send_counts = array<i64: 1, 2, 3> {
}

// -----

// expected-error @+1 {{send_counts holds the negative count -1}}
sched.schedule @counts collective = all_to_all_v group_size = 1 send_counts = array<i64: -1> {
}

// -----

sched.schedule @twice collective = all_gather {
  sched.channel 0 {
  }
  // expected-error @+1 {{channel 0 appears twice in the schedule}}
  sched.channel 0 {
  }
}

// -----

sched.schedule @twice collective = all_gather group_size = 2 {
  sched.rank 1 {
  }
  // expected-error @+1 {{rank 1 appears twice in the schedule}}
  sched.rank 1 {
  }
}

// -----

// expected-error @+1 {{may only hold sched.channel or sched.rank ops; found 'sched.send'}}
sched.schedule @loose collective = all_gather {
  sched.send to 1 src = input[0]
}

// -----

// expected-error @+1 {{holds both sched.channel ops (the parametric form) and sched.rank ops (the explicit form)}}
sched.schedule @both collective = all_gather group_size = 2 {
  sched.channel 0 {
  }
  sched.rank 0 {
  }
}

// -----

// expected-error @+1 {{explicit schedule (sched.rank ops) needs a group_size}}
sched.schedule @explicit collective = all_gather {
  sched.rank 0 {
  }
}

// -----

//===----------------------------------------------------------------------===//
// sched.rank and sched.channel
//===----------------------------------------------------------------------===//

sched.schedule @rank8 collective = all_gather group_size = 8 {
  // expected-error @+1 {{rank 8 is outside the group of 8 ranks}}
  sched.rank 8 {
  }
}

// -----

sched.schedule @rank_negative collective = all_gather group_size = 8 {
  // expected-error @+1 {{rank -1 is outside the group of 8 ranks}}
  sched.rank -1 {
  }
}

// -----

sched.schedule @rank_body collective = all_gather group_size = 2 {
  // expected-error @+1 {{may only hold sched.channel ops; found 'sched.send'}}
  sched.rank 0 {
    sched.send to 1 src = input[0]
  }
}

// -----

sched.schedule @rank_channels collective = all_gather group_size = 2 {
  sched.rank 0 {
    sched.channel 3 {
    }
    // expected-error @+1 {{channel 3 appears twice in rank 0}}
    sched.channel 3 {
    }
  }
}

// -----

// expected-error @+1 {{expects parent op 'sched.schedule'}}
sched.rank 1 {
}

// -----

sched.schedule @channel_id collective = all_gather {
  // expected-error @+1 {{channel id 256 is outside [0, 256)}}
  sched.channel 256 {
  }
}

// -----

sched.schedule @channel_negative collective = all_gather {
  // expected-error @+1 {{channel id -1 is outside [0, 256)}}
  sched.channel -1 {
  }
}

// -----

sched.schedule @channel_body collective = all_gather {
  // expected-error @+1 {{may only hold sched instructions, sched.for, sched.if and sched.let; found 'sched.channel'}}
  sched.channel 0 {
    sched.channel 1 {
    }
  }
}

// -----

// expected-error @+1 {{expects parent op to be one of 'sched.schedule, sched.rank'}}
sched.channel 0 {
}

// -----

//===----------------------------------------------------------------------===//
// sched.for and sched.if
//===----------------------------------------------------------------------===//

sched.schedule @dotted_var collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{loop variable 'a.b' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)}}
    sched.for a.b = 0 to n {
    }
  }
}

// -----

sched.schedule @reserved_var collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{loop variable 'k' is reserved (r, n, k, mod, floordiv, ceildiv)}}
    sched.for k = 0 to n {
    }
  }
}

// -----

sched.schedule @shadow collective = all_gather {
  sched.channel 0 {
    sched.for s = 0 to n {
      // expected-error @+1 {{loop variable 's' shadows an enclosing loop's variable}}
      sched.for s = 0 to n {
      }
    }
  }
}

// -----

sched.schedule @shadow_param collective = all_gather params = {p = 2} {
  sched.channel 0 {
    // expected-error @+1 {{loop variable 'p' shadows the schedule's parameter}}
    sched.for p = 0 to n {
    }
  }
}

// -----

sched.schedule @bound_dims collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{lower bound has 2 dims but 1 are in scope (r and 0 loop variables)}}
    "sched.for"() <{var = "s", lower = affine_map<(d0, d1)[s0, s1] -> (d1)>, upper = 4}> ({
    ^bb0:
    }) : () -> ()
  }
}

// -----

sched.schedule @geometric_no_factor collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{a geometric loop needs a factor (step * c)}}
    "sched.for"() <{var = "d", lower = 1, upper = 8, geometric}> ({
    ^bb0:
    }) : () -> ()
  }
}

// -----

sched.schedule @geometric_factor collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{geometric step factor must be at least 2, got 1}}
    sched.for d = 1 to n step * 1 {
    }
  }
}

// -----

sched.schedule @geometric_start collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{a geometric loop must start at 1 or more, got 0}}
    sched.for d = 0 to n step * 2 {
    }
  }
}

// -----

sched.schedule @step0 collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{step must be positive, got 0}}
    sched.for s = 0 to n step 0 {
    }
  }
}

// -----

sched.schedule @loop_body collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{may only hold sched instructions, sched.for, sched.if and sched.let; found 'sched.rank'}}
    sched.for s = 0 to n {
      sched.rank 0 {
      }
    }
  }
}

// -----

sched.schedule @condition_dims collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{condition has 2 dims but 1 are in scope (r and 0 loop variables)}}
    "sched.if"() <{condition = affine_set<(d0, d1)[s0, s1] : (d0 - d1 >= 0)>}> ({
    ^bb0:
    }, {
    }) : () -> ()
  }
}

// -----

sched.schedule @condition_symbols collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{condition has 3 symbols but 2 are in scope (n, k and 0 parameters)}}
    "sched.if"() <{condition = affine_set<(d0)[s0, s1, s2] : (d0 - s2 >= 0)>}> ({
    ^bb0:
    }, {
    }) : () -> ()
  }
}

// -----

sched.schedule @condition_divisor collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{condition divides by -1}}
    "sched.if"() <{condition = affine_set<(d0)[s0, s1] : (d0 floordiv -1 >= 0)>}> ({
    ^bb0:
    }, {
    }) : () -> ()
  }
}

// -----

sched.schedule @else_body collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{may only hold sched instructions, sched.for, sched.if and sched.let; found 'sched.channel'}}
    sched.if "r == 0" {
    } else {
      sched.channel 1 {
      }
    }
  }
}

// -----

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

sched.schedule @peer_dims collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{peer ('to') has 2 dims but 1 are in scope (r and 0 loop variables)}}
    "sched.send"() <{to = affine_map<(d0, d1)[s0, s1] -> (d1)>, src = #sched<buffer input>, src_index = 0}> : () -> ()
  }
}

// -----

sched.schedule @index_symbols collective = all_gather params = {p = 1} {
  sched.channel 0 {
    sched.for s = 0 to n {
      // expected-error @+1 {{source index has 2 symbols but 3 are in scope (n, k and 1 parameters)}}
      "sched.send"() <{to = 0, src = #sched<buffer input>, src_index = #sched.map<(d0, d1)[s0, s1] -> "d0 * d1">}> : () -> ()
    }
  }
}

// -----

sched.schedule @count_results collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{count has 2 results; an expression has one}}
    "sched.recv"() <{from = 0, dst = #sched<buffer output>, dst_index = 0, count = affine_map<(d0)[s0, s1] -> (d0, s0)>}> : () -> ()
  }
}

// -----

sched.schedule @peer_kind collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.send' op attribute 'to' failed to satisfy constraint: an integer or a one-result map over the dims and symbols in scope}}
    "sched.send"() <{to = "one", src = #sched<buffer input>, src_index = 0}> : () -> ()
  }
}

// -----

sched.schedule @peer8 collective = all_gather group_size = 8 {
  sched.channel 0 {
    // expected-error @+1 {{peer 8 is outside the group of 8 ranks}}
    sched.send to 8 src = input[0]
  }
}

// -----

sched.schedule @peer_negative collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{peer -1 is outside the group}}
    sched.recv from -1 dst = output[0]
  }
}

// -----

sched.schedule @self_send collective = all_gather group_size = 2 {
  sched.rank 1 {
    sched.channel 0 {
      // expected-error @+1 {{rank 1 sends to itself; use sched.copy for local moves}}
      sched.send to 1 src = input[0]
    }
  }
}

// -----

sched.schedule @self_recv collective = all_gather group_size = 2 {
  sched.rank 0 {
    sched.channel 0 {
      // expected-error @+1 {{rank 0 receives from itself; use sched.copy for local moves}}
      sched.recv_copy_send from 0 to 1 dst = output[0]
    }
  }
}

// -----

sched.schedule @negative_index collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{chunk index -1 is negative}}
    sched.copy src = input[0] dst = output[-1]
  }
}

// -----

sched.schedule @count0 collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{count must be at least 1, got 0}}
    sched.copy src = input[0] dst = output[0] count = 0
  }
}

// -----

sched.schedule @big_step collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{step 3000000000 does not fit in 32 bits}}
    sched.copy src = input[0] dst = output[0] step = 3000000000
  }
}

// -----

sched.schedule @no_scratch collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{uses scratch chunks but the schedule declares none (scratch = ...)}}
    sched.reduce src = scratch[0] dst = output[0]
  }
}

// -----

sched.schedule @own_channel collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{depends on its own channel 0; a channel's instructions already run in order}}
    sched.copy src = input[0] dst = output[0] after = [(channel 0, index 0)]
  }
}

// -----

sched.schedule @missing_channel collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{depends on channel 3, which the schedule does not have}}
    sched.copy src = input[0] dst = output[0] after = [(channel 3, index 0)]
  }
}

// -----

sched.schedule @missing_rank_channel collective = all_gather group_size = 2 {
  sched.rank 0 {
    sched.channel 0 {
      // expected-error @+1 {{depends on channel 1, which rank 0 does not have}}
      sched.copy src = input[0] dst = output[0] after = [(channel 1, index 0)]
    }
  }
  sched.rank 1 {
    sched.channel 1 {
    }
  }
}

// -----

sched.schedule @dependency_negative collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{dependency index -2 is negative}}
    sched.copy src = input[0] dst = output[0] after = [(channel 1, index -2)]
  }
  sched.channel 1 {
  }
}

// -----

sched.schedule @dependency_kind collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{dependency index must be an integer or a map}}
    "sched.copy"() <{src = #sched<buffer input>, src_index = 0, dst = #sched<buffer output>, dst_index = 0, after = [#sched.dep<channel = 1, index = "x">]}> : () -> ()
  }
  sched.channel 1 {
  }
}

// -----

sched.schedule @dependency_dims collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{dependency index has 0 dims but 1 are in scope (r and 0 loop variables)}}
    "sched.copy"() <{src = #sched<buffer input>, src_index = 0, dst = #sched<buffer output>, dst_index = 0, after = [#sched.dep<channel = 1, index = affine_map<()[s0, s1] -> (s0)>>]}> : () -> ()
  }
  sched.channel 1 {
  }
}

// -----

sched.schedule @outside collective = all_gather {
  sched.channel 0 {
  }
}
// expected-error @+1 {{expects parent op to be one of 'sched.channel, sched.for, sched.if, sched.let'}}
sched.send to 1 src = input[0]
