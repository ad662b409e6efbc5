/* SPDX-License-Identifier: MIT */
/* board.c - Netduino Plus 2 (STM32F405RG): the clock tree and a USART console (CONSOLE = uart).
 *
 * Written against the STM32F405/407 reference manual (RM0090): register names and bit
 * positions are RM0090's (RCC §7.3, FLASH §3.9, PWR §5.4, GPIO §8.4, USART §30.6).
 *
 * Clock: the board's 25 MHz crystal (HSE) through the main PLL to 168 MHz, as the board runs it:
 * PLLM = 25 (1 MHz into the VCO), PLLN = 336 (336 MHz), PLLP = 2 (SYSCLK 168 MHz), PLLQ = 7
 * (48 MHz for USB); AHB 168 MHz, APB1 42 MHz (/4, its limit), APB2 84 MHz (/2, its limit);
 * 5 flash wait states (RM0090 table 10, 2.7-3.6 V). Every wait for a ready bit is bounded: if the
 * crystal does not start, the chip stays on its 16 MHz internal oscillator (HSI) and the console
 * is set up for that clock, so the program still prints (its tick rate, qp_port_tick_hz(), then
 * reads 168 MHz where the counter runs at 16).
 * QEMU 7.2's netduinoplus2 does not model the RCC (nor the flash interface or the GPIOs): their
 * registers read 0 and ignore writes, so no ready bit would ever rise. On silicon RCC_CR.HSIRDY
 * reads 1 from reset (the chip runs on the HSI), so HSIRDY = 0 means "no clock controller here":
 * the clock is left as the machine has it (QEMU clocks the core and SysTick at 168 MHz).
 *
 * Console: USART6, TX on PC6 and RX on PC7 (alternate function 8), 115200 8N1, blocking.
 * On the Netduino Plus 2 these pins are its header's COM1 (D1 = TX, D0 = RX: 3.3 V levels, a
 * USB-serial adapter reads them); under QEMU USART6 is the machine's sixth serial port
 * (board.mk QEMU_UART = 5, `-serial stdio`). QEMU's USART ignores the baud rate.
 */
#include "board_console.h"

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

/* RCC, reset and clock control (RM0090 §7.3) */
#define RCC_BASE 0x40023800u
#define RCC_CR REG(RCC_BASE + 0x00u)
#define RCC_PLLCFGR REG(RCC_BASE + 0x04u)
#define RCC_CFGR REG(RCC_BASE + 0x08u)
#define RCC_AHB1ENR REG(RCC_BASE + 0x30u)
#define RCC_APB1ENR REG(RCC_BASE + 0x40u)
#define RCC_APB2ENR REG(RCC_BASE + 0x44u)
#define RCC_CR_HSIRDY (1u << 1)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_PLLCFGR_PLLSRC_HSE (1u << 22)
#define RCC_PLLCFGR_FIELDS 0x0F437FFFu /* PLLQ, PLLSRC, PLLP, PLLN, PLLM */
#define RCC_CFGR_SW_MASK 3u
#define RCC_CFGR_SW_PLL 2u
#define RCC_CFGR_BUS_FIELDS 0x0000FCF0u /* PPRE2, PPRE1, HPRE */
#define RCC_CFGR_SWS_MASK (3u << 2)
#define RCC_CFGR_SWS_PLL (2u << 2)
#define RCC_CFGR_PPRE1_DIV4 (5u << 10)
#define RCC_CFGR_PPRE2_DIV2 (4u << 13)
#define RCC_AHB1ENR_GPIOCEN (1u << 2)
#define RCC_APB1ENR_PWREN (1u << 28)
#define RCC_APB2ENR_USART6EN (1u << 5)

/* PLL: HSE / M = 1 MHz into the VCO, * N = 336 MHz, / P = 168 MHz, / Q = 48 MHz. The Netduino
 * Plus 2's crystal is 25 MHz (a board with another crystal changes HSE_HZ only). */
#define HSE_HZ 25000000u
#define PLL_M (HSE_HZ / 1000000u)
#define PLL_N 336u
#define PLL_P_DIV2 0u /* PLLP field: 0 = divide by 2 */
#define PLL_Q 7u

/* FLASH interface (RM0090 §3.9.1) */
#define FLASH_ACR REG(0x40023C00u)
#define FLASH_ACR_LATENCY_5WS 5u
#define FLASH_ACR_LATENCY_MASK 7u
#define FLASH_ACR_PRFTEN (1u << 8)
#define FLASH_ACR_ICEN (1u << 9)
#define FLASH_ACR_DCEN (1u << 10)

/* PWR (RM0090 §5.4.1): VOS = 1, regulator scale 1, needed above 144 MHz */
#define PWR_CR REG(0x40007000u)
#define PWR_CR_VOS (1u << 14)

/* GPIOC (RM0090 §8.4) */
#define GPIOC_BASE 0x40020800u
#define GPIOC_MODER REG(GPIOC_BASE + 0x00u)
#define GPIOC_PUPDR REG(GPIOC_BASE + 0x0Cu)
#define GPIOC_AFRL REG(GPIOC_BASE + 0x20u)
#define GPIO_MODE_AF 2u
#define GPIO_PULL_UP 1u
#define GPIO_AF8_USART6 8u
#define TX_PIN 6u
#define RX_PIN 7u

/* USART6 (RM0090 §30.6), on APB2 */
#define USART6_BASE 0x40011400u
#define USART_SR REG(USART6_BASE + 0x00u)
#define USART_DR REG(USART6_BASE + 0x04u)
#define USART_BRR REG(USART6_BASE + 0x08u)
#define USART_CR1 REG(USART6_BASE + 0x0Cu)
#define USART_CR2 REG(USART6_BASE + 0x10u)
#define USART_CR3 REG(USART6_BASE + 0x14u)
#define USART_SR_TC (1u << 6)
#define USART_SR_TXE (1u << 7)
#define USART_CR1_RE (1u << 2)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_UE (1u << 13)

#define HSI_HZ 16000000u
#define APB2_PLL_HZ 84000000u
#define BAUD 115200u
/* Polls of a ready bit before giving up: about 0.1 s at 16 MHz, 50x the HSE's typical start. */
#define READY_POLLS 400000u

/* Poll until (reg & mask) == want, at most READY_POLLS times; 1 if it got there. */
static int wait_bits(volatile uint32_t *reg, uint32_t mask, uint32_t want)
{
    for (uint32_t n = 0; n < READY_POLLS; n++) {
        if ((*reg & mask) == want) {
            return 1;
        }
    }
    return 0;
}

/* SYSCLK to 168 MHz from the HSE and PLL; returns the APB2 clock it leaves (the USART's). */
static uint32_t clock_init(void)
{
    if ((RCC_CR & RCC_CR_HSIRDY) == 0u) {
        return APB2_PLL_HZ; /* no RCC model (QEMU): the machine's own clock, which ignores baud */
    }
    RCC_CR |= RCC_CR_HSEON;
    if (!wait_bits(&RCC_CR, RCC_CR_HSERDY, RCC_CR_HSERDY)) {
        RCC_CR &= ~RCC_CR_HSEON; /* no crystal: stay on the HSI, everything at 16 MHz */
        return HSI_HZ;
    }
    RCC_APB1ENR |= RCC_APB1ENR_PWREN;
    PWR_CR |= PWR_CR_VOS;
    /* Only the PLL's fields: the reserved bits keep their reset value (bit 29 reads 1). */
    RCC_PLLCFGR = (RCC_PLLCFGR & ~RCC_PLLCFGR_FIELDS) | PLL_M | (PLL_N << 6) | (PLL_P_DIV2 << 16) |
                  RCC_PLLCFGR_PLLSRC_HSE | (PLL_Q << 24);
    RCC_CR |= RCC_CR_PLLON;
    if (!wait_bits(&RCC_CR, RCC_CR_PLLRDY, RCC_CR_PLLRDY)) {
        RCC_CR &= ~(RCC_CR_PLLON | RCC_CR_HSEON);
        return HSI_HZ;
    }
    /* Wait states before the faster clock, and check they took (RM0090 §3.5.1). */
    FLASH_ACR = FLASH_ACR_LATENCY_5WS | FLASH_ACR_PRFTEN | FLASH_ACR_ICEN | FLASH_ACR_DCEN;
    if ((FLASH_ACR & FLASH_ACR_LATENCY_MASK) != FLASH_ACR_LATENCY_5WS) {
        RCC_CR &= ~(RCC_CR_PLLON | RCC_CR_HSEON);
        return HSI_HZ;
    }
    /* AHB /1, APB1 /4, APB2 /2, still on the HSI; then the switch to the PLL. */
    RCC_CFGR = (RCC_CFGR & ~RCC_CFGR_BUS_FIELDS) | RCC_CFGR_PPRE1_DIV4 | RCC_CFGR_PPRE2_DIV2;
    RCC_CFGR = (RCC_CFGR & ~RCC_CFGR_SW_MASK) | RCC_CFGR_SW_PLL;
    if (!wait_bits(&RCC_CFGR, RCC_CFGR_SWS_MASK, RCC_CFGR_SWS_PLL)) {
        RCC_CFGR &= ~(RCC_CFGR_SW_MASK | RCC_CFGR_BUS_FIELDS); /* back to the HSI, prescalers /1 */
        return HSI_HZ;
    }
    return APB2_PLL_HZ;
}

void board_console_init(void)
{
    const uint32_t apb2_hz = clock_init();
    RCC_AHB1ENR |= RCC_AHB1ENR_GPIOCEN;
    RCC_APB2ENR |= RCC_APB2ENR_USART6EN;
    (void)RCC_APB2ENR; /* a read-back: the clock is on before the first access (ST's errata) */
    GPIOC_MODER = (GPIOC_MODER & ~((3u << (2u * TX_PIN)) | (3u << (2u * RX_PIN)))) |
                  (GPIO_MODE_AF << (2u * TX_PIN)) | (GPIO_MODE_AF << (2u * RX_PIN));
    GPIOC_PUPDR = (GPIOC_PUPDR & ~(3u << (2u * RX_PIN))) | (GPIO_PULL_UP << (2u * RX_PIN));
    GPIOC_AFRL = (GPIOC_AFRL & ~((15u << (4u * TX_PIN)) | (15u << (4u * RX_PIN)))) |
                 (GPIO_AF8_USART6 << (4u * TX_PIN)) | (GPIO_AF8_USART6 << (4u * RX_PIN));
    USART_CR1 = 0u;
    USART_CR2 = 0u; /* 1 stop bit */
    USART_CR3 = 0u; /* no flow control */
    /* 16x oversampling: BRR = f / baud, the 4-bit fraction included (RM0090 §30.3.4), rounded. */
    USART_BRR = (apb2_hz + BAUD / 2u) / BAUD;
    USART_CR1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE; /* 8 data bits, no parity */
}

void board_console_write(const char *s, unsigned len)
{
    for (unsigned i = 0; i < len; i++) {
        while ((USART_SR & USART_SR_TXE) == 0u) {
        }
        USART_DR = (uint8_t)s[i];
    }
    /* Blocking until sent: the last frame has left the pin (TC), so an exit or reset
     * that follows does not cut it off. */
    while ((USART_SR & USART_SR_TC) == 0u) {
    }
}
