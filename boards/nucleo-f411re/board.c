/* SPDX-License-Identifier: MIT */
/* board.c - Nucleo-F411RE (STM32F411RE) console: USART2 on the ST-LINK virtual COM port.
 *
 * Written against the STM32F411 reference manual (RM0383): RCC §6.3, GPIO §8.4, USART §19.6.
 * The smallest driver that prints: the chip stays on its reset clock, the 16 MHz internal
 * oscillator (HSI), which also clocks APB1 and so USART2; no PLL, no flash wait states.
 * PA2 (TX) and PA3 (RX), alternate function 7, reach the ST-LINK's USB serial port through the
 * board's default solder bridges (SB13, SB14). 115200 8N1, blocking.
 * There is no vendor startup: the vector table and reset are port/cortex_m/startup.c.
 */
#include "board_console.h"

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

/* RCC (RM0383 §6.3) */
#define RCC_AHB1ENR REG(0x40023830u)
#define RCC_APB1ENR REG(0x40023840u)
#define RCC_AHB1ENR_GPIOAEN (1u << 0)
#define RCC_APB1ENR_USART2EN (1u << 17)

/* GPIOA (RM0383 §8.4) */
#define GPIOA_BASE 0x40020000u
#define GPIOA_MODER REG(GPIOA_BASE + 0x00u)
#define GPIOA_PUPDR REG(GPIOA_BASE + 0x0Cu)
#define GPIOA_AFRL REG(GPIOA_BASE + 0x20u)
#define GPIO_MODE_AF 2u
#define GPIO_PULL_UP 1u
#define GPIO_AF7_USART2 7u
#define TX_PIN 2u
#define RX_PIN 3u

/* USART2 (RM0383 §19.6), on APB1 */
#define USART2_BASE 0x40004400u
#define USART_SR REG(USART2_BASE + 0x00u)
#define USART_DR REG(USART2_BASE + 0x04u)
#define USART_BRR REG(USART2_BASE + 0x08u)
#define USART_CR1 REG(USART2_BASE + 0x0Cu)
#define USART_SR_TC (1u << 6)
#define USART_SR_TXE (1u << 7)
#define USART_CR1_RE (1u << 2)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_UE (1u << 13)

#define APB1_HZ 16000000u /* HSI, AHB and APB1 prescalers 1 at reset */
#define BAUD 115200u

void board_console_init(void)
{
    RCC_AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
    RCC_APB1ENR |= RCC_APB1ENR_USART2EN;
    (void)RCC_APB1ENR; /* a read-back: the clock is on before the first access */
    GPIOA_MODER = (GPIOA_MODER & ~((3u << (2u * TX_PIN)) | (3u << (2u * RX_PIN)))) |
                  (GPIO_MODE_AF << (2u * TX_PIN)) | (GPIO_MODE_AF << (2u * RX_PIN));
    GPIOA_PUPDR = (GPIOA_PUPDR & ~(3u << (2u * RX_PIN))) | (GPIO_PULL_UP << (2u * RX_PIN));
    GPIOA_AFRL = (GPIOA_AFRL & ~((15u << (4u * TX_PIN)) | (15u << (4u * RX_PIN)))) |
                 (GPIO_AF7_USART2 << (4u * TX_PIN)) | (GPIO_AF7_USART2 << (4u * RX_PIN));
    /* 16x oversampling: BRR = f / baud with its 4-bit fraction (RM0383 §19.3.4), rounded: 139. */
    USART_BRR = (APB1_HZ + BAUD / 2u) / BAUD;
    USART_CR1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE; /* 8N1: CR2, CR3 keep their reset 0 */
}

void board_console_write(const char *s, unsigned len)
{
    for (unsigned i = 0; i < len; i++) {
        while ((USART_SR & USART_SR_TXE) == 0u) {
        }
        USART_DR = (uint8_t)s[i];
    }
    while ((USART_SR & USART_SR_TC) == 0u) { /* the last frame has left the pin */
    }
}
