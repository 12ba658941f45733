/*===- FakeIbverbs.c - stand-ins for libibverbs in the loader's tests -----===*
 *
 * Built twice as a shared library: with every function IbvNet loads, whose
 * ibv_get_device_list finds no device (as libibverbs does on a host without
 * RDMA hardware), and without ibv_create_qp (a library too old or not
 * libibverbs). The functions only need to exist; the loader never calls
 * the others when there is no device.
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>

void **ibv_get_device_list(int *count) {
  static void *none[1] = {NULL};
  if (count)
    *count = 0;
  return none;
}
void ibv_free_device_list(void **list) { (void)list; }

#define STUB(name)                                                             \
  int name(void) { return -1; }
STUB(ibv_get_device_name)
STUB(ibv_open_device)
STUB(ibv_close_device)
STUB(ibv_query_device)
STUB(ibv_query_port)
STUB(ibv_query_gid)
STUB(ibv_alloc_pd)
STUB(ibv_dealloc_pd)
STUB(ibv_reg_mr)
STUB(ibv_dereg_mr)
STUB(ibv_create_comp_channel)
STUB(ibv_destroy_comp_channel)
STUB(ibv_create_cq)
STUB(ibv_destroy_cq)
STUB(ibv_get_cq_event)
STUB(ibv_ack_cq_events)
#ifndef FAKE_IBVERBS_WITHOUT_CREATE_QP
STUB(ibv_create_qp)
#endif
STUB(ibv_modify_qp)
STUB(ibv_destroy_qp)
STUB(ibv_wc_status_str)
