// SPDX-License-Identifier: MIT
// Client side of the NIC driver.
#include "client.h"
#include <l4/drivers.h>
#include <l4/nic.h>

L4_ThreadId_t pecan_nic;

/* Call the driver with the message in the MRs: 0, or minus the reason. */
static long call(L4_Word_t label)
{
	L4_MsgTag_t tag = L4_Call(pecan_nic);
	if (L4_IpcFailed(tag))
		return -NIC_ERR_IPC;
	if (L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_TAG_U(tag) == 1)
		return -(long)L4_MR(1);
	return L4_TAG_LABEL(tag) == label ? 0 : -DRIVER_ERR_REQUEST;
}

long nic_info(uint8_t mac[6])
{
	L4_SetMR(0, L4_TAG_MAKE(NIC_INFO, 0, 0));
	long err = call(NIC_INFO);
	for (int i = 0; !err && i < 6; i++)
		mac[i] = (uint8_t)(L4_MR(1) >> (8 * i));
	return err;
}

long nic_counts(uint64_t *frames, uint64_t *interrupts)
{
	L4_SetMR(0, L4_TAG_MAKE(NIC_INFO, 0, 0));
	long err = call(NIC_INFO);
	if (!err && frames)
		*frames = L4_MR(3);
	if (!err && interrupts)
		*interrupts = L4_MR(4);
	return err;
}

long nic_send(const void *frame, uint32_t len)
{
	L4_SetMR(0, L4_TAG_MAKE(NIC_SEND, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(len, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)frame);
	long err = call(NIC_SEND);
	return err ? err : (long)L4_MR(1);
}

long nic_recv(void *buf)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(NIC_FRAME_MAX, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)buf);
	L4_SetMR(0, L4_TAG_MAKE(NIC_RECV, 0, 0));
	long err = call(NIC_RECV);
	L4_SetBR(0, 0);
	return err ? err : (long)L4_STRING_LEN(L4_MR(1));
}

long nic_notify(void)
{
	L4_SetMR(0, L4_TAG_MAKE(NIC_NOTIFY, 0, 0));
	return call(NIC_NOTIFY);
}
