/* SPDX-License-Identifier: MIT */
/* uart.c - USART2 on PA2, register level (STM32F411 reference manual RM0383: RCC 6.3, GPIO 8.4,
 * USART 19.6). The STM32F405 of QEMU's netduinoplus2 has the same RCC, GPIOA and USART2. */
#include "uart.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define RCC_AHB1ENR REG(0x40023830u)
#define RCC_APB1ENR REG(0x40023840u)
#define GPIOA_MODER REG(0x40020000u)
#define GPIOA_AFRL REG(0x40020020u)
#define USART2_SR REG(0x40004400u)
#define USART2_DR REG(0x40004404u)
#define USART2_BRR REG(0x40004408u)
#define USART2_CR1 REG(0x4000440Cu)

#define SR_TXE (1u << 7)
#define SR_TC (1u << 6)
#define CR1_UE (1u << 13)
#define CR1_TE (1u << 3)
#define BAUD 115200u

void uart_init(uint32_t apb1_hz)
{
    RCC_AHB1ENR |= 1u << 0;  /* GPIOA */
    RCC_APB1ENR |= 1u << 17; /* USART2 */
    (void)RCC_APB1ENR;       /* read back: the clocks run before the first access below */
    GPIOA_MODER = (GPIOA_MODER & ~(3u << 4)) | (2u << 4);   /* PA2: alternate function */
    GPIOA_AFRL = (GPIOA_AFRL & ~(15u << 8)) | (7u << 8);    /* AF7: USART2_TX */
    USART2_BRR = (apb1_hz + BAUD / 2u) / BAUD;              /* 16x oversampling, rounded */
    USART2_CR1 = CR1_UE | CR1_TE;                           /* 8N1, transmit only */
}

void uart_puts(const char *s)
{
    for (; *s; s++) {
        if (*s == '\n') { /* a terminal wants CR LF */
            while (!(USART2_SR & SR_TXE)) {
            }
            USART2_DR = '\r';
        }
        while (!(USART2_SR & SR_TXE)) {
        }
        USART2_DR = (uint8_t)*s;
    }
    while (!(USART2_SR & SR_TC)) {
    }
}

void uart_put_u32(uint32_t v)
{
    char buf[11];
    int i = 10;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    uart_puts(buf + i);
}

void uart_put_hex32(uint32_t v)
{
    char buf[9];
    for (int i = 0; i < 8; i++) buf[i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15u];
    buf[8] = 0;
    uart_puts(buf);
}
