package app

import (
	"context"

	"github.com/curvekit/curvekit/orders"
)

// wireOrders builds the orders service: what the account places, lists and cancels.
func (a *App) wireOrders(context.Context) error {
	var err error
	a.Orders, err = orders.NewService(orders.Config{
		Store: a.DB.Orders(), Tokens: a.Store,
		MaxPrice: a.Config.MaxPriceOrders, MaxTimed: a.Config.MaxTimeOrders,
	})
	return err
}
