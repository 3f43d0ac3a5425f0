package design

// Prices of Amazon DynamoDB in US East (N. Virginia), us-east-1, Standard
// table class, in US dollars.
//
// Source: the DynamoDB pricing pages, aws.amazon.com/dynamodb/pricing/on-demand/
// and aws.amazon.com/dynamodb/pricing/provisioned/, as published after the
// price reduction effective 1 November 2024, which halved on-demand
// throughput prices (from $1.25 to $0.625 per million write request units
// and from $0.25 to $0.125 per million read request units); provisioned
// capacity and storage prices were unchanged. Figures checked in the
// project's reference search against secondary summaries of those pages
// dated 2025 (the AWS page excerpts available did not show the numbers
// themselves). Check the pages before relying on an estimate: prices change
// and differ by region.
const (
	// USEast1WriteRequestUnit is the on-demand price of one write request
	// unit: $0.625 per million.
	USEast1WriteRequestUnit = 0.625 / 1e6
	// USEast1ReadRequestUnit is the on-demand price of one read request
	// unit: $0.125 per million.
	USEast1ReadRequestUnit = 0.125 / 1e6
	// USEast1WCUHour is the provisioned price of one write capacity unit
	// for an hour.
	USEast1WCUHour = 0.00065
	// USEast1RCUHour is the provisioned price of one read capacity unit
	// for an hour.
	USEast1RCUHour = 0.00013
	// USEast1StorageGBMonth is the price of a GB of table or index data for
	// a month, after the first 25 GB of the account, which are free (the
	// cost model does not subtract them).
	USEast1StorageGBMonth = 0.25
)

// HoursPerMonth is the month of AWS's price lists: 730 hours (8,760 / 12).
const HoursPerMonth = 730

// SecondsPerMonth is HoursPerMonth in seconds, 2,628,000.
const SecondsPerMonth = HoursPerMonth * 3600

// BytesPerGB is the GB of storage prices, 2^30 bytes.
const BytesPerGB = 1 << 30

// ItemOverhead is the storage DynamoDB bills for each item on top of its
// data, in the table and in each index holding it: 100 bytes.
const ItemOverhead = 100

// Prices are the DynamoDB prices a cost estimate uses, in one currency.
type Prices struct {
	// Region names where the prices hold ("us-east-1").
	Region string
	// Source says where and when the prices were read.
	Source string
	// WriteRequestUnit and ReadRequestUnit are the on-demand prices of one
	// request unit.
	WriteRequestUnit, ReadRequestUnit float64
	// WCUHour and RCUHour are the provisioned prices of one capacity unit
	// for one hour.
	WCUHour, RCUHour float64
	// StorageGBMonth is the price of one GB (2^30 bytes) for one month.
	StorageGBMonth float64
}

// DefaultPrices are the us-east-1 prices the cost model uses when a
// Workload gives none. A program may replace them.
var DefaultPrices = Prices{
	Region:           "us-east-1",
	Source:           "aws.amazon.com/dynamodb/pricing, on-demand prices halved from 1 November 2024",
	WriteRequestUnit: USEast1WriteRequestUnit,
	ReadRequestUnit:  USEast1ReadRequestUnit,
	WCUHour:          USEast1WCUHour,
	RCUHour:          USEast1RCUHour,
	StorageGBMonth:   USEast1StorageGBMonth,
}
