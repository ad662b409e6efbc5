/* SPDX-License-Identifier: MIT */
/* uart.h - USART2 of the STM32F411 (the Nucleo's ST-LINK virtual COM port), transmit only. */
#ifndef FIRMWARE_UART_H
#define FIRMWARE_UART_H

#include <stdint.h>

/* 115200 8N1 on PA2 from an APB1 clock of apb1_hz. */
void uart_init(uint32_t apb1_hz);
/* Send a NUL-terminated string, blocking until its last byte has left. */
void uart_puts(const char *s);
/* Decimal and 8-digit hex, without printf (which would bring the heap and float along). */
void uart_put_u32(uint32_t v);
void uart_put_hex32(uint32_t v);

#endif
